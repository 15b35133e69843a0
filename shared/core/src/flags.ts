import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { LOG_LEVELS, type LogLevel } from './logger.js';

export type Transport = 'stdio' | 'http';

/** The flags every toolmesh server takes, with the same meaning everywhere. */
export interface ServerFlags {
  roots: string[];
  transport: Transport;
  host: string;
  port: number;
  db?: string;
  workspaces: string[];
  agent?: string;
  config?: Record<string, unknown>;
  configPath?: string;
  logLevel: LogLevel;
}

export interface FlagSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  value?: string;
  description: string;
}

export const COMMON_FLAGS: Record<string, FlagSpec> = {
  root: {
    type: 'string',
    multiple: true,
    value: 'DIR',
    description: 'a folder the server may use (repeatable)',
  },
  transport: { type: 'string', value: 'stdio|http', description: 'how to serve MCP (default stdio)' },
  host: { type: 'string', value: 'HOST', description: 'HTTP address to bind (default 127.0.0.1)' },
  port: { type: 'string', value: 'N', description: 'HTTP port (default 3000; 0 picks a free one)' },
  db: { type: 'string', value: 'FILE', description: 'SQLite file for state (default in the data directory)' },
  workspace: {
    type: 'string',
    multiple: true,
    value: 'ID',
    description: 'workspace id served (repeatable; default "default")',
  },
  agent: { type: 'string', value: 'NAME', description: 'identity to act as when no aggregator passes one' },
  config: {
    type: 'string',
    value: 'FILE',
    description: 'JSON file with the same settings; flags win over it',
  },
  'log-level': {
    type: 'string',
    value: 'LEVEL',
    description: `${LOG_LEVELS.join('|')} (default info); logs go to stderr`,
  },
  help: { type: 'boolean', description: 'show this help' },
  version: { type: 'boolean', description: 'print the version' },
};

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function helpText(
  command: string,
  summary: string,
  extraFlags: Record<string, FlagSpec> = {},
): string {
  const specs = { ...extraFlags, ...COMMON_FLAGS };
  const rows = Object.entries(specs).map(([name, spec]) => [
    `--${name}${spec.value ? ` ${spec.value}` : ''}`,
    spec.description,
  ]);
  const width = Math.max(...rows.map(([flag]) => (flag as string).length));
  return [
    `${command} — ${summary}`,
    '',
    `Usage: ${command} [flags]`,
    '',
    ...rows.map(([flag, description]) => `  ${(flag as string).padEnd(width)}  ${description}`),
    '',
  ].join('\n');
}

function readConfig(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--config ${file}: cannot read it (${(error as Error).message})`);
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new Error('expected a JSON object');
    return value as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(`--config ${file}: not a JSON object (${(error as Error).message})`);
  }
}

function pick<T>(flag: T | undefined, config: unknown, fallback: T): T {
  return flag ?? (config as T | undefined) ?? fallback;
}

/**
 * Parses argv into the common flags plus the server's own (`extra`). Config file values fill
 * in what flags leave out. Throws UsageError with a message that names the flag.
 */
export function parseServerFlags(
  argv: readonly string[],
  extraFlags: Record<string, FlagSpec> = {},
): {
  flags: ServerFlags;
  extra: Record<string, string | boolean | string[] | undefined>;
  help: boolean;
  version: boolean;
} {
  const options = Object.fromEntries(
    Object.entries({ ...extraFlags, ...COMMON_FLAGS }).map(([name, spec]) => [
      name,
      { type: spec.type, ...(spec.multiple && { multiple: true }) },
    ]),
  );
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }) as {
      values: Record<string, string | boolean | string[] | undefined>;
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}. Run with --help for the flags.`);
  }

  const configPath = values.config as string | undefined;
  const config = configPath ? readConfig(configPath) : {};
  const configDir = configPath ? path.dirname(path.resolve(configPath)) : process.cwd();

  const transport = pick(values.transport as string | undefined, config.transport, 'stdio');
  if (transport !== 'stdio' && transport !== 'http') {
    throw new UsageError(`--transport must be stdio or http, not "${transport}"`);
  }
  const portText = String(pick(values.port as string | undefined, config.port, '3000'));
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, not "${portText}"`);
  }
  const logLevel = pick(values['log-level'] as string | undefined, config.logLevel, 'info');
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, not "${logLevel}"`);
  }
  const configRoots = Array.isArray(config.roots) ? (config.roots as unknown[]).map(String) : [];
  const roots = values.root
    ? (values.root as string[]).map((root) => path.resolve(root))
    : configRoots.map((root) => path.resolve(configDir, root));
  const configWorkspaces = Array.isArray(config.workspaces)
    ? (config.workspaces as unknown[]).map(String)
    : [];
  const workspaces =
    (values.workspace as string[] | undefined) ??
    (configWorkspaces.length > 0 ? configWorkspaces : ['default']);
  const db = values.db
    ? path.resolve(values.db as string)
    : typeof config.db === 'string'
      ? path.resolve(configDir, config.db)
      : undefined;
  const agent = pick(values.agent as string | undefined, config.agent, undefined);

  const extra: Record<string, string | boolean | string[] | undefined> = {};
  for (const name of Object.keys(extraFlags)) extra[name] = values[name];

  return {
    flags: {
      roots,
      transport,
      host: pick(values.host as string | undefined, config.host, '127.0.0.1'),
      port,
      ...(db !== undefined && { db }),
      workspaces,
      ...(agent !== undefined && { agent: String(agent) }),
      config,
      ...(configPath && { configPath }),
      logLevel: logLevel as LogLevel,
    },
    extra,
    help: values.help === true,
    version: values.version === true,
  };
}
