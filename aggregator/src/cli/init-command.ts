import { existsSync, writeFileSync } from 'node:fs';
import { installedBin } from '../config/first-party.js';
import { type Command, flagsOnly, parseFlags } from './command.js';
import { DEFAULT_CONFIG_FILE } from './resolve-config.js';
import { UsageError } from './usage-error.js';

const FS_PACKAGE = '@toolmesh/server-fs';

/**
 * A config that works where it is written: the fs server this toolmesh has installed, run by
 * this Node from its absolute path (in a clone, the workspace's build); npx fetches it only
 * where it is not installed, which works once the package is published.
 */
function starterConfig(): { config: Record<string, unknown>; note?: string } {
  const bin = installedBin(FS_PACKAGE);
  const fs = bin
    ? { command: process.execPath, args: [bin, '--root', '.'] }
    : { command: 'npx', args: ['-y', FS_PACKAGE, '--root', '.'] };
  return {
    config: {
      $schema: 'https://unpkg.com/@toolmesh/aggregator/toolmesh.schema.json',
      exposure: 'all',
      mcpServers: { fs },
    },
    ...(!bin && {
      note: `${FS_PACKAGE} is not installed beside toolmesh, so fs runs through npx, which needs the package published; install it, or point "command" at a built server`,
    }),
  };
}

export const initCommand: Command = {
  async run(args) {
    const { values, positionals } = parseFlags('init', args, {
      force: { type: 'boolean', default: false },
    });
    flagsOnly('init', positionals);
    if (existsSync(DEFAULT_CONFIG_FILE) && !values.force) {
      throw new UsageError(`${DEFAULT_CONFIG_FILE} exists; pass --force to overwrite it`);
    }
    const { config, note } = starterConfig();
    writeFileSync(DEFAULT_CONFIG_FILE, `${JSON.stringify(config, null, 2)}\n`);
    if (note) process.stderr.write(`toolmesh init: ${note}\n`);
    process.stderr.write(
      `wrote ${DEFAULT_CONFIG_FILE}; check it with: toolmesh doctor; then: toolmesh serve\n`,
    );
    return 0;
  },
};
