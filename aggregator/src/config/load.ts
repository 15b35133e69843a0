import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { type AggregatorConfig, configSchema, isStdioServer, type ServerConfig } from './schema.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Where a config error is: `mcpServers.github.command`. */
function keyPath(parts: readonly PropertyKey[]): string {
  return parts.map(String).join('.') || '(the whole file)';
}

function describeIssues(file: string, error: z.ZodError): string {
  const lines = error.issues.slice(0, 10).map((issue) => {
    if (issue.code === 'invalid_union') {
      return `${keyPath(issue.path)}: a server needs either "command" (a program to run) or "url" (a remote endpoint)`;
    }
    return `${keyPath(issue.path)}: ${issue.message}`;
  });
  return `${file} is not a valid toolmesh config:\n  ${lines.join('\n  ')}`;
}

const ENV_REFERENCE = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Replaces `${env:NAME}` in every string of a server entry; a missing variable is an error naming the key. */
function expandEnv(value: unknown, where: string, env: NodeJS.ProcessEnv): unknown {
  if (typeof value === 'string') {
    return value.replace(ENV_REFERENCE, (_, name: string) => {
      const found = env[name];
      if (found === undefined) {
        throw new ConfigError(
          `${where}: \${env:${name}} is not set; set ${name} in the environment or write the value`,
        );
      }
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => expandEnv(item, `${where}.${index}`, env));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, expandEnv(item, `${where}.${key}`, env)]),
    );
  }
  return value;
}

export interface LoadedConfig {
  config: AggregatorConfig;
  /** Enabled servers by name: mcpServers and VS Code's servers merged, env references expanded. */
  servers: Map<string, ServerConfig>;
  file?: string;
}

/** Validates parsed JSON. `baseDir` anchors relative `cwd` values. */
export function parseConfig(
  raw: unknown,
  options: { file?: string; baseDir?: string; env?: NodeJS.ProcessEnv } = {},
): LoadedConfig {
  const file = options.file ?? 'config';
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(describeIssues(file, parsed.error));
  const config = parsed.data;
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
    const expanded = expandEnv(server, `${section}.${name}`, options.env ?? process.env) as ServerConfig;
    if (isStdioServer(expanded) && expanded.cwd && options.baseDir) {
      expanded.cwd = path.resolve(options.baseDir, expanded.cwd);
    }
    servers.set(name, expanded);
  }
  return { config, servers, ...(options.file && { file: options.file }) };
}

export function loadConfigFile(file: string, env?: NodeJS.ProcessEnv): LoadedConfig {
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
  return parseConfig(raw, { file, baseDir: path.dirname(path.resolve(file)), ...(env && { env }) });
}
