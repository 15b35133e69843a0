import { ConfigError } from '../config/load.js';
import { approvals } from './approvals.js';
import { audit } from './audit.js';
import { callCommand } from './call-command.js';
import type { Command } from './command.js';
import { doctorCommand } from './doctor-command.js';
import { initCommand } from './init-command.js';
import { DEFAULT_CONFIG_FILE } from './resolve-config.js';
import { sandbox } from './sandbox.js';
import { searchCommand } from './search-command.js';
import { serveCommand } from './serve-command.js';
import { token } from './token.js';
import { toolsCommand } from './tools-command.js';
import { UsageError } from './usage-error.js';

/** Every command, by its name; each parses its own flags. */
const COMMANDS: Record<string, Command> = {
  serve: serveCommand,
  tools: toolsCommand,
  search: searchCommand,
  call: callCommand,
  doctor: doctorCommand,
  init: initCommand,
  approvals,
  audit,
  token,
  sandbox,
};

const USAGE = `toolmesh — one MCP endpoint over many MCP servers

Usage:
${Object.values(COMMANDS)
  .map((command) => command.usage)
  .join('\n')}

Modes: chat (everything), plan, review, orchestrate, and those the config defines.

Without --config, ./${DEFAULT_CONFIG_FILE} is used when it exists; otherwise every installed
first-party server (@toolmesh/server-*) runs, rooted at --root (default: this folder).
Logs go to stderr; with --transport stdio, stdout carries only MCP.
`;

const HELP = new Set(['help', '--help', '-h']);

/** Runs one command; resolves to its exit code, or -1 while it keeps running (serve). */
export async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first !== undefined && HELP.has(first)) {
    process.stderr.write(USAGE);
    return 0;
  }
  // No command, or flags first: serve, as `toolmesh --transport http` has always meant.
  const [name, args] = first === undefined || first.startsWith('-') ? ['serve', argv] : [first, rest];
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) throw new UsageError(`unknown command "${name}"`);
  // A command's own --help; sandbox reads its own (its command line after -- may hold one).
  if (name !== 'sandbox' && args.some((arg) => HELP.has(arg) && arg !== 'help')) {
    process.stderr.write(`${command.usage}\n`);
    return 0;
  }
  return command.run(args);
}

export async function run(argv: string[]): Promise<void> {
  try {
    const code = await main(argv);
    if (code >= 0) process.exit(code);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(
        `toolmesh: ${(error as Error).message}\n${error instanceof UsageError ? 'Run toolmesh --help for usage.\n' : ''}`,
      );
      process.exit(2);
    }
    process.stderr.write(`toolmesh: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  }
}
