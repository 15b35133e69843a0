import { dataDirectory } from '@toolmesh/core';
import { openTokenRegistry } from '../auth/open-token-registry.js';
import { type TokenRegistry, TokenStoreError } from '../auth/token-store.js';
import type { LoadedConfig } from '../config/load.js';
import { Policy } from '../policy/policy.js';
import { type Command, parseFlags, print } from './command.js';
import { resolveConfig } from './resolve-config.js';
import { takeStateArgs } from './state-flags.js';

export interface TokenCommandOptions {
  /** Where `toolmesh token` keeps its tokens: the data directory's aggregator/tokens.json, or Redis. */
  store: TokenRegistry;
  /** The config in effect (from the command's --config and --root), to check modes and workspaces against and to list its own tokens. */
  config: (flags: { config?: string; root: string }) => LoadedConfig;
  print: (line: string) => void;
}

const USAGE =
  "usage: toolmesh token create --name NAME [--workspace ID]... [--modes M1,M2] [--approver] | list [--json] | revoke NAME; with --redis URL (or the config's state.redis) the tokens are the fleet's, in Redis";

function listOf(values: string[] | undefined): string[] | undefined {
  const items = values
    ?.flatMap((value) => value.split(','))
    .map((item) => item.trim())
    .filter(Boolean);
  return items && items.length > 0 ? items : undefined;
}

/** Names the request uses that the config does not know, so a typo does not make a useless token. */
function unknownNames(asked: string[] | undefined, known: string[], what: string): string | undefined {
  const unknown = (asked ?? []).filter((name) => !known.includes(name));
  if (unknown.length === 0) return undefined;
  return `no ${what} named ${unknown.join(', ')}; the ${what}s are ${known.join(', ')}`;
}

function rights(token: { workspaces?: string[]; modes?: string[]; approver: boolean }): string {
  return [
    `modes ${token.modes?.join(',') ?? 'all'}`,
    `workspaces ${token.workspaces?.join(',') ?? 'all'}`,
    token.approver ? 'approver' : 'not approver',
  ].join('; ');
}

/**
 * `toolmesh token`: bearer tokens for the HTTP endpoint. A token is shown once, when made;
 * only its hash is kept. Exit codes: 0 done, 1 nothing to do, 2 misuse.
 */
export async function tokenCommand(args: string[], options: TokenCommandOptions): Promise<number> {
  const { print, store } = options;
  const { values, positionals } = parseFlags('token', args, {
    name: { type: 'string' },
    workspace: { type: 'string', multiple: true },
    modes: { type: 'string', multiple: true },
    approver: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    config: { type: 'string' },
    root: { type: 'string' },
  });
  const [verb, ...extra] = positionals;
  const config = () =>
    options.config({ ...(values.config && { config: values.config }), root: values.root ?? '.' });
  try {
    if (verb === 'create' && extra.length === 0) {
      if (!values.name) {
        print(`token create needs --name NAME, the identity servers will see. ${USAGE}`);
        return 2;
      }
      const loaded = config();
      const workspaces = listOf(values.workspace);
      const modes = listOf(values.modes);
      const inConfig = loaded.config.auth.tokens.some((token) => token.name === values.name);
      const problem =
        (inConfig
          ? `the config's auth.tokens has a token named ${values.name} already; a name is one identity, so choose another`
          : undefined) ??
        unknownNames(modes, new Policy(loaded.config).table.names(), 'mode') ??
        unknownNames(
          workspaces,
          loaded.workspaces.map((workspace) => workspace.id),
          'workspace',
        );
      if (problem) {
        print(`toolmesh token create: ${problem}`);
        return 2;
      }
      const { secret, record } = await store.create({
        name: values.name,
        ...(workspaces && { workspaces }),
        ...(modes && { modes }),
        approver: values.approver,
      });
      print(`created token ${record.name} (${rights(record)}):`);
      print(secret);
      print(
        'It is shown only now: toolmesh keeps only its hash. Clients send it as "Authorization: Bearer <token>".',
      );
      return 0;
    }
    if (verb === 'list' && extra.length === 0) {
      const listed = [
        ...store.list().map((token) => ({ ...token, source: 'toolmesh token' })),
        ...config().config.auth.tokens.map((token) => ({ ...token, source: 'config' })),
      ].map(({ sha256, ...token }) => ({ ...token, sha256Prefix: sha256.slice(0, 12) }));
      if (values.json) print(JSON.stringify(listed, null, 2));
      else if (listed.length === 0)
        print('no token exists; toolmesh serve --transport http makes one on first start');
      else for (const token of listed) print(`${token.name}  ${rights(token)}  (${token.source})`);
      return 0;
    }
    if (verb === 'revoke' && extra.length === 1) {
      const name = extra[0] as string;
      if (await store.revoke(name)) {
        print(`revoked ${name}: requests with it now get 401`);
        return 0;
      }
      const inConfig = config().config.auth.tokens.some((token) => token.name === name);
      print(
        inConfig
          ? `token ${name} is in the config file's auth.tokens: remove it there (toolmesh reloads the file)`
          : `no token named ${name}; toolmesh token list shows them`,
      );
      return 1;
    }
  } catch (error) {
    if (error instanceof TokenStoreError) {
      print(`toolmesh token: ${error.message}`);
      return 2;
    }
    throw error;
  }
  print(USAGE);
  return 2;
}

export const token: Command = {
  async run(args) {
    const { settings, rest } = takeStateArgs(args, { keepConfig: true });
    const store = await openTokenRegistry({
      dataDir: dataDirectory(),
      ...(settings.redis && { redis: settings.redis }),
      ...(settings.redisKeyPrefix && { redisKeyPrefix: settings.redisKeyPrefix }),
    });
    try {
      return await tokenCommand(rest, { store, config: resolveConfig, print });
    } finally {
      await store.close();
    }
  },
};
