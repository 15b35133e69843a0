import { existsSync, writeFileSync } from 'node:fs';
import { type Command, flagsOnly, parseFlags } from './command.js';
import { DEFAULT_CONFIG_FILE } from './resolve-config.js';
import { UsageError } from './usage-error.js';

const STARTER_CONFIG = {
  $schema: 'https://unpkg.com/@toolmesh/aggregator/toolmesh.schema.json',
  exposure: 'all',
  mcpServers: {
    fs: { command: 'npx', args: ['-y', '@toolmesh/server-fs', '--root', '.'] },
  },
};

export const initCommand: Command = {
  usage: `  toolmesh init [--force]               write a starter ${DEFAULT_CONFIG_FILE}`,
  async run(args) {
    const { values, positionals } = parseFlags('init', args, {
      force: { type: 'boolean', default: false },
    });
    flagsOnly('init', positionals);
    if (existsSync(DEFAULT_CONFIG_FILE) && !values.force) {
      throw new UsageError(`${DEFAULT_CONFIG_FILE} exists; pass --force to overwrite it`);
    }
    writeFileSync(DEFAULT_CONFIG_FILE, `${JSON.stringify(STARTER_CONFIG, null, 2)}\n`);
    process.stderr.write(`wrote ${DEFAULT_CONFIG_FILE}; run: toolmesh serve\n`);
    return 0;
  },
};
