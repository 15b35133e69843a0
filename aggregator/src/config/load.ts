import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { BUILT_IN_MODES } from '../policy/modes.js';
import { upstreamConfigs } from '../workspaces/instances.js';
import { defaultWorkspace, type Workspace } from '../workspaces/workspace.js';
import { ConfigError } from './config-error.js';
import { expandServerEntries } from './expand-env.js';
import { type AggregatorConfig, configSchema, isStdioServer, type ServerConfig } from './schema.js';
import { withSharedProcesses } from './shared-processes.js';
import { unknownKeyWarnings } from './unknown-keys.js';

export { ConfigError };

/** Where a config error is: `mcpServers.github.command`. */
function keyPath(parts: readonly PropertyKey[]): string {
  return parts.map(String).join('.') || '(the whole file)';
}

function valueAt(raw: unknown, parts: readonly PropertyKey[]): unknown {
  return parts.reduce<unknown>(
    (value, key) => (value as Record<PropertyKey, unknown> | undefined)?.[key],
    raw,
  );
}

/** A server entry fails as a union: explain it by the kind it was meant to be (it has `command`, or `url`). */
function describeServerIssue(raw: unknown, issue: z.core.$ZodIssueInvalidUnion): string[] {
  const entry = valueAt(raw, issue.path) as Record<string, unknown> | undefined;
  const branch = entry && 'command' in entry ? 0 : entry && 'url' in entry ? 1 : undefined;
  if (branch === undefined) {
    return [
      `${keyPath(issue.path)}: a server needs either "command" (a program to run) or "url" (a remote endpoint)`,
    ];
  }
  return (issue.errors[branch] ?? []).map(
    (inner) => `${keyPath([...issue.path, ...inner.path])}: ${inner.message}`,
  );
}

function describeIssues(file: string, error: z.ZodError, raw: unknown): string {
  const lines = error.issues
    .slice(0, 10)
    .flatMap((issue) =>
      issue.code === 'invalid_union'
        ? describeServerIssue(raw, issue)
        : issue.code === 'invalid_key'
          ? issue.issues.map((inner) => `${keyPath(issue.path)}: ${inner.message}`)
          : [`${keyPath(issue.path)}: ${issue.message}`],
    );
  return `${file} is not a valid toolmesh config:\n  ${lines.join('\n  ')}`;
}

/** Mode references must name a mode: the built-ins plus the config's own. */
function checkModeReferences(file: string, config: AggregatorConfig): void {
  const modes = [...new Set([...Object.keys(BUILT_IN_MODES), ...Object.keys(config.modes)])];
  const known = `the modes are ${modes.join(', ')}`;
  if (!modes.includes(config.defaultMode))
    throw new ConfigError(`${file}: defaultMode: "${config.defaultMode}" is not a mode; ${known}`);
  for (const [name, mode] of Object.entries(config.modes)) {
    if (mode.exitTo !== undefined && !modes.includes(mode.exitTo))
      throw new ConfigError(`${file}: modes.${name}.exitTo: "${mode.exitTo}" is not a mode; ${known}`);
  }
}

/** The config's workspaces, roots resolved; a server they name must be configured. */
function workspacesOf(
  file: string,
  config: AggregatorConfig,
  configured: ReadonlySet<string>,
  options: { baseDir?: string; defaultRoot?: string },
): Workspace[] {
  if (!config.workspaces) return [defaultWorkspace(options.defaultRoot ?? '.')];
  const entries = Object.entries(config.workspaces);
  if (entries.length === 0)
    throw new ConfigError(`${file}: workspaces: name at least one, or leave the key out`);
  return entries.map(([id, workspace]) => {
    for (const server of workspace.servers ?? []) {
      if (!configured.has(server))
        throw new ConfigError(
          `${file}: workspaces.${id}.servers: "${server}" is not a configured server; the servers are ${[...configured].join(', ') || '(none)'}`,
        );
    }
    return {
      id,
      name: workspace.name ?? id,
      roots: workspace.roots.map((root) => path.resolve(options.baseDir ?? '.', root)),
      ...(workspace.servers && { servers: workspace.servers }),
    };
  });
}

export interface LoadedConfig {
  config: AggregatorConfig;
  /**
   * The upstreams to run, by name: mcpServers and VS Code's servers merged, env references
   * expanded, per-workspace servers as one instance per workspace (`fs@web`).
   */
  servers: Map<string, ServerConfig>;
  workspaces: Workspace[];
  /** What is wrong but not fatal (unknown top-level keys), each naming its key. */
  warnings: string[];
  file?: string;
}

/**
 * Validates parsed JSON. `baseDir` anchors relative `cwd` values and workspace roots;
 * `defaultRoot` is the root of the one workspace of a config that names none.
 */
export function parseConfig(
  raw: unknown,
  options: {
    file?: string;
    baseDir?: string;
    env?: NodeJS.ProcessEnv;
    defaultRoot?: string;
    /** `toolmesh serve --processes`: over the config's shareProcesses and every server's shareProcess. */
    shareProcesses?: boolean;
  } = {},
): LoadedConfig {
  const file = options.file ?? 'config';
  const expanded = expandServerEntries(raw, options.env ?? process.env, file);
  const parsed = configSchema.safeParse(expanded);
  if (!parsed.success) throw new ConfigError(describeIssues(file, parsed.error, expanded));
  const config = parsed.data;
  checkModeReferences(file, config);
  const servers = new Map<string, ServerConfig>();
  const entries = [
    ...Object.entries(config.mcpServers).map(([name, server]) => ['mcpServers', name, server] as const),
    ...Object.entries(config.servers ?? {}).map(([name, server]) => ['servers', name, server] as const),
  ];
  for (const [section, name, server] of entries) {
    if (servers.has(name))
      throw new ConfigError(`${file}: server "${name}" is defined in both mcpServers and servers`);
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
      throw new ConfigError(
        `${file}: ${section}.${name}: a server name takes letters, digits, '_', '-' and '.' (1-64)`,
      );
    }
    if (server.disabled) continue;
    const resolved = { ...server };
    if (isStdioServer(resolved) && resolved.cwd && options.baseDir) {
      resolved.cwd = path.resolve(options.baseDir, resolved.cwd);
    }
    if (isStdioServer(resolved) && resolved.roots && options.baseDir) {
      const baseDir = options.baseDir;
      resolved.roots = resolved.roots.map((root) => path.resolve(baseDir, root));
    }
    servers.set(name, resolved);
  }
  const configured = new Set(entries.map(([, name]) => name));
  const workspaces = workspacesOf(file, config, configured, options);
  return {
    config,
    servers: withSharedProcesses(upstreamConfigs(servers, workspaces), file, {
      byDefault: options.shareProcesses ?? config.shareProcesses,
      forced: options.shareProcesses !== undefined,
    }),
    workspaces,
    warnings: unknownKeyWarnings(raw, Object.keys(configSchema.shape)).map(
      (warning) => `${file}: ${warning}`,
    ),
    ...(options.file && { file: options.file }),
  };
}

export function loadConfigFile(
  file: string,
  options: { env?: NodeJS.ProcessEnv; defaultRoot?: string; shareProcesses?: boolean } = {},
): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file} is not JSON: ${(error as Error).message}`);
  }
  return parseConfig(raw, { file, baseDir: path.dirname(path.resolve(file)), ...options });
}
