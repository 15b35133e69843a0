import { createLogger, LOG_LEVELS, type Logger, type LogLevel } from '@toolmesh/core';
import type { Aggregator } from '../aggregator.js';
import type { LoadedConfig } from '../config/load.js';
import { DEFAULT_CONFIG_FILE, resolveConfig } from './resolve-config.js';
import { STATE_FLAGS, type StateFlags } from './state-flags.js';
import { UsageError } from './usage-error.js';

/** The flags of every command that runs the registry: which config, the default root, the log level, where the state lives. */
export const REGISTRY_FLAGS = {
  config: { type: 'string' },
  root: { type: 'string', default: '.' },
  'log-level': { type: 'string' },
  ...STATE_FLAGS,
} as const;

/** The flags of a command that acts as one client session. */
export const SESSION_FLAGS = {
  mode: { type: 'string' },
  workspace: { type: 'string' },
} as const;

export interface RegistryFlags extends StateFlags {
  config?: string | undefined;
  root: string;
  'log-level'?: string | undefined;
}

export interface SessionFlags {
  mode?: string | undefined;
  workspace?: string | undefined;
}

/** The log on stderr, at --log-level or else `fallback` (one-shot commands print results, not the servers' chatter). */
export function loggerFor(flags: RegistryFlags, fallback: LogLevel): Logger {
  const level = flags['log-level'] ?? fallback;
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  return createLogger({ level: level as LogLevel });
}

/** `shareProcesses`: what `serve --processes` asked, over the config. */
export function configOf(flags: RegistryFlags, shareProcesses?: boolean): LoadedConfig {
  return resolveConfig({
    ...(flags.config && { config: flags.config }),
    root: flags.root,
    ...(shareProcesses !== undefined && { shareProcesses }),
  });
}

/** The session's --mode and --workspace, checked against the config so a typo names the choices. */
export function checkSession(aggregator: Aggregator, flags: SessionFlags): void {
  const { mode, workspace } = flags;
  if (mode !== undefined && !aggregator.policy.table.has(mode))
    throw new UsageError(
      `--mode: no mode named ${mode}; the modes are ${aggregator.policy.table.names().join(', ')}`,
    );
  if (workspace !== undefined && !aggregator.workspaces.get(workspace))
    throw new UsageError(
      `--workspace: no workspace named ${workspace}; the workspaces are ${aggregator.workspaces.workspaces.map((known) => known.id).join(', ')}`,
    );
}

/** The session options of --mode and --workspace. */
export function sessionOf(flags: SessionFlags): { mode?: string; workspace?: string } {
  return { ...(flags.mode && { mode: flags.mode }), ...(flags.workspace && { workspace: flags.workspace }) };
}

/** What to say when the config gives no server to run: nothing is served, and how to add servers. */
export function nothingServed(loaded: LoadedConfig): string | undefined {
  if (loaded.servers.size > 0) return undefined;
  return loaded.file
    ? `nothing is served: ${loaded.file} has no enabled server; add one under "mcpServers" (its "command" and "args", as a Claude Desktop or Cursor config has them), or run toolmesh init --force for a starter config`
    : `nothing is served: there is no ${DEFAULT_CONFIG_FILE} here and no @toolmesh/server-* package is installed; run toolmesh init to write a starter config, or install a server package (npm install @toolmesh/server-fs)`;
}
