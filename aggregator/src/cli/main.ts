import { ConfigError } from '../config/config-error.js';
import { StateUnavailableError } from '../state/state-unavailable.js';
import type { Command } from './command.js';
import { DEFAULT_CONFIG_FILE } from './resolve-config.js';
import { UsageError } from './usage-error.js';

/**
 * Every command, by its name, with its lines in the usage; each parses its own flags. A command's
 * module is loaded only when it runs: start-up time is mostly loading modules.
 */
const COMMANDS: Record<string, { usage: string; load: () => Promise<Command> }> = {
  serve: {
    usage: `  toolmesh serve [--config FILE] [--transport stdio|http] [--host H] [--port N] [--root DIR]
                 [--mode MODE]          stdio: the session's mode (HTTP: the path, /mcp/<mode>)
                 [--workspace ID]       stdio: bind the session to one workspace (HTTP: ?workspace=ID)
                 [--processes shared|separate]
                                        first-party servers in shared processes or one each (config: shareProcesses)`,
    load: async () => (await import('./serve-command.js')).serveCommand,
  },
  tools: {
    usage: '  toolmesh tools [--json] [--mode MODE] list the tools of the registry (as MODE sees them)',
    load: async () => (await import('./tools-command.js')).toolsCommand,
  },
  search: {
    usage: '  toolmesh search "<query>" [--limit N] [--json] [--mode MODE]',
    load: async () => (await import('./search-command.js')).searchCommand,
  },
  call: {
    usage: "  toolmesh call <tool> '<json arguments>' [--json] [--mode MODE]",
    load: async () => (await import('./call-command.js')).callCommand,
  },
  doctor: {
    usage: '  toolmesh doctor                       start each server and say which fail, and how to fix it',
    load: async () => (await import('./doctor-command.js')).doctorCommand,
  },
  init: {
    usage: `  toolmesh init [--force]               write a starter ${DEFAULT_CONFIG_FILE}`,
    load: async () => (await import('./init-command.js')).initCommand,
  },
  approvals: {
    usage: `  toolmesh approvals [--watch] [--json] the calls waiting for a person's approval
  toolmesh approvals approve|deny <id> [--reason TEXT]`,
    load: async () => (await import('./approvals.js')).approvals,
  },
  audit: {
    usage: `  toolmesh audit [--since 30m|2h|7d] [--tool GLOB] [--identity NAME] [--limit N] [--json]
                                        the calls that reached policy, newest first`,
    load: async () => (await import('./audit.js')).audit,
  },
  token: {
    usage: `  toolmesh token create --name NAME [--workspace ID]... [--modes M1,M2] [--approver]
  toolmesh token list [--json] | toolmesh token revoke NAME
                                        bearer tokens for the HTTP endpoint (shown once, kept as hashes)`,
    load: async () => (await import('./token.js')).token,
  },
  discovery: {
    usage: `  toolmesh discovery forget [--redis URL]
                                        forget what tool search learnt from the tools sessions called`,
    load: async () => (await import('./discovery.js')).discovery,
  },
  sandbox: {
    usage: `  toolmesh sandbox [--root DIR]... [--read-only] [--net] [--env NAME]... -- <command> [args...]
                                        run any command (an MCP server) in a bubblewrap sandbox`,
    load: async () => (await import('./sandbox.js')).sandbox,
  },
};

const USAGE = `toolmesh — one MCP endpoint over many MCP servers

Usage:
${Object.values(COMMANDS)
  .map((command) => command.usage)
  .join('\n')}

Modes: chat (everything), plan, review, orchestrate, and those the config defines.

State: a SQLite file in the data directory, unless --redis URL (shared by replicas) and
--postgres URL (the fleet's durable audit), or the config's "state", say otherwise; serve,
tools, search, call, doctor, approvals and audit take both flags.

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
  return (await command.load()).run(args);
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
    // Redis or PostgreSQL not answering is the machine's state, not a bug: the message says what to fix.
    if (error instanceof StateUnavailableError) {
      process.stderr.write(`toolmesh: ${error.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`toolmesh: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  }
}
