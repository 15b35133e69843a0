import { ConfigError } from './config-error.js';
import { isRecord } from './is-record.js';

const ENV_REFERENCE = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces `${env:NAME}` in every string of `value`; a missing variable is an error naming the
 * key, unless `keepUnset`, which leaves the reference as written.
 */
function expandEnv(value: unknown, where: string, env: NodeJS.ProcessEnv, keepUnset = false): unknown {
  if (typeof value === 'string') {
    return value.replace(ENV_REFERENCE, (reference, name: string) => {
      const found = env[name];
      if (found === undefined) {
        if (keepUnset) return reference;
        throw new ConfigError(
          `${where}: \${env:${name}} is not set; set ${name} in the environment or write the value`,
        );
      }
      return found;
    });
  }
  if (Array.isArray(value))
    return value.map((item, index) => expandEnv(item, `${where}.${index}`, env, keepUnset));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, expandEnv(item, `${where}.${key}`, env, keepUnset)]),
    );
  }
  return value;
}

/**
 * The raw config with `${env:NAME}` expanded in every server entry and in `state` (whose URLs
 * carry passwords), before validation, so a reference may stand anywhere a value is checked (a
 * `url`, too). In a disabled entry an unset variable is no error: the machine may not run that server.
 */
export function expandServerEntries(raw: unknown, env: NodeJS.ProcessEnv, file: string): unknown {
  if (!isRecord(raw)) return raw;
  const expanded = { ...raw };
  for (const section of ['mcpServers', 'servers'] as const) {
    const servers = raw[section];
    if (!isRecord(servers)) continue;
    expanded[section] = Object.fromEntries(
      Object.entries(servers).map(([name, server]) => [
        name,
        expandEnv(server, `${file}: ${section}.${name}`, env, isRecord(server) && server.disabled === true),
      ]),
    );
  }
  if (raw.state !== undefined) expanded.state = expandEnv(raw.state, `${file}: state`, env);
  return expanded;
}
