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
        : [`${keyPath(issue.path)}: ${issue.message}`],
    );
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
  if (!parsed.success) throw new ConfigError(describeIssues(file, parsed.error, raw));
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
