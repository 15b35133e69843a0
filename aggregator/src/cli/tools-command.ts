import { type Command, flagsOnly, parseFlags, print } from './command.js';
import { noteCacheAge, withOneShotSession } from './one-shot.js';
import { REGISTRY_FLAGS, SESSION_FLAGS } from './registry-flags.js';

export const toolsCommand: Command = {
  async run(args) {
    const { values, positionals } = parseFlags('tools', args, {
      ...REGISTRY_FLAGS,
      ...SESSION_FLAGS,
      json: { type: 'boolean', default: false },
    });
    flagsOnly('tools', positionals);
    return withOneShotSession(values, async (aggregator, session) => {
      noteCacheAge(aggregator);
      const { tools } = await session.client.listTools();
      if (values.json) print(JSON.stringify(tools, null, 2));
      else
        for (const tool of tools)
          print(`${tool.name.padEnd(40)} ${(tool.description ?? '').split('\n')[0]?.slice(0, 100)}`);
      return 0;
    });
  },
};
