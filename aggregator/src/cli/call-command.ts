import { unknownToolMessage } from '../tools/unknown-tool-message.js';
import { callArguments } from './call-arguments.js';
import { type Command, parseFlags, print } from './command.js';
import { textOf } from './in-process-client.js';
import { withOneShotSession } from './one-shot.js';
import { REGISTRY_FLAGS, SESSION_FLAGS } from './registry-flags.js';

export const callCommand: Command = {
  async run(args) {
    const { values, positionals } = parseFlags('call', args, {
      ...REGISTRY_FLAGS,
      ...SESSION_FLAGS,
      json: { type: 'boolean', default: false },
    });
    // Checked before any server starts, so a typo costs no start-up.
    const { tool, args: toolArguments } = callArguments(positionals);
    return withOneShotSession(values, async (aggregator, session) => {
      // Not in a cached catalogue: perhaps a server has it now, so every server is asked.
      if (!aggregator.registry.tool(tool)) await aggregator.upstreams.wakeAll();
      if (!aggregator.registry.tool(tool)) {
        process.stderr.write(
          `toolmesh: ${unknownToolMessage(aggregator, tool, 'toolmesh search "<words>"')}\n`,
        );
        return 2;
      }
      const result = await session.call('call_tool', { name: tool, arguments: toolArguments });
      print(values.json ? JSON.stringify(result, null, 2) : textOf(result));
      return result.isError ? 1 : 0;
    });
  },
};
