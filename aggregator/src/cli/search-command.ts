import { SEARCH_LIMIT_MAX } from '../tools/discovery.js';
import { type Command, parseFlags, print } from './command.js';
import { textOf } from './in-process-client.js';
import { noteCacheAge, withOneShotSession } from './one-shot.js';
import { REGISTRY_FLAGS, SESSION_FLAGS } from './registry-flags.js';
import { UsageError, wholeNumberOption } from './usage-error.js';

export const searchCommand: Command = {
  async run(args) {
    const { values, positionals } = parseFlags('search', args, {
      ...REGISTRY_FLAGS,
      ...SESSION_FLAGS,
      json: { type: 'boolean', default: false },
      limit: { type: 'string', default: '10' },
    });
    // Checked before any server starts, so a typo costs no start-up.
    const query = positionals.join(' ');
    if (!query) throw new UsageError('search needs a query: toolmesh search "create issue"');
    const limit = wholeNumberOption('--limit', values.limit, { min: 1, max: SEARCH_LIMIT_MAX });
    return withOneShotSession(values, async (aggregator, session) => {
      noteCacheAge(aggregator);
      const result = await session.call('search_tool_bm25', { query, limit });
      print(values.json ? JSON.stringify(result.structuredContent, null, 2) : textOf(result));
      return result.isError ? 1 : 0;
    });
  },
};
