import { LOOPBACK_HOSTS } from '@toolmesh/core/http';
import type { AggregatorConfig } from '../config/schema.js';
import { redisKeyPrefix } from '../state/shared-names.js';
import { Authenticator } from './authenticator.js';
import { localToken, localTokenFile } from './local-token.js';
import { openTokenRegistry } from './open-token-registry.js';
import { RateLimiter } from './rate-limiter.js';
import { type RateLimitCheck, sharedRateLimit } from './shared-rate-limit.js';
import type { TokenRegistry } from './token-store.js';

export class HttpAccessError extends Error {
  override readonly name = 'HttpAccessError';
}

/**
 * Throws when a name is both in the config's tokens and among those `toolmesh token create`
 * made: a name is one identity, and two credentials under one name would pass for one person.
 */
export function checkTokenNames(auth: AggregatorConfig['auth'], store: TokenRegistry): void {
  if (!auth.required) return;
  const made = new Set(store.list().map((token) => token.name));
  const shared = [...new Set(auth.tokens.map((token) => token.name).filter((name) => made.has(name)))];
  if (shared.length > 0)
    throw new HttpAccessError(
      `token name ${shared.join(', ')} is both in the config's auth.tokens and made by toolmesh token create; a name is one identity, so rename one of them (or revoke it).`,
    );
}

async function fleetRateLimit(redis: string, keyPrefix: string, requestsPerMinute: () => number) {
  const { RedisRateLimiter } = await import('./redis-rate-limiter.js');
  return RedisRateLimiter.open(redis, requestsPerMinute, { keyPrefix });
}

export interface HttpAccess {
  /** Undefined when the config turns authentication off (loopback only). */
  authenticator?: Authenticator;
  /** The token of the person at this machine, to print in the client config snippet. */
  localToken?: string;
  /** With Redis: the fleet's rate limit, to run before the front authenticates. */
  sharedRateLimit?: RateLimitCheck;
}

/**
 * Who may use toolmesh over HTTP, settled before any server starts: tokens, and on loopback a
 * first token made for the person at this machine. Off loopback, a server without
 * authentication, or with no token to accept, is refused: anyone on the network could run every tool.
 */
export async function prepareHttpAccess(options: {
  auth: AggregatorConfig['auth'];
  host: string;
  dataDir: string;
  /** With Redis, the tokens are the fleet's, in Redis; else the data directory's file. */
  redis?: string;
  /** `state.redisPrefix`, when the config sets it. */
  redisKeyPrefix?: string;
  /** The auth settings in effect now: a reload changes the config's tokens and the rate limit. */
  current: () => AggregatorConfig['auth'];
}): Promise<HttpAccess> {
  const loopback = LOOPBACK_HOSTS.includes(options.host);
  if (!options.auth.required) {
    if (loopback) return {};
    throw new HttpAccessError(
      `refusing to listen on ${options.host} with auth.required false: anyone who can reach it could run every tool. Listen on 127.0.0.1 (the default), or turn authentication on and create tokens with toolmesh token create.`,
    );
  }
  const store = await openTokenRegistry({
    dataDir: options.dataDir,
    ...(options.redis && { redis: options.redis }),
    ...(options.redisKeyPrefix && { redisKeyPrefix: options.redisKeyPrefix }),
  });
  try {
    checkTokenNames(options.auth, store);
  } catch (error) {
    await store.close();
    throw error;
  }
  const requestsPerMinute = () => options.current().requestsPerMinute;
  const shared = options.redis
    ? await fleetRateLimit(options.redis, redisKeyPrefix(options.redisKeyPrefix), requestsPerMinute)
    : undefined;
  // With the fleet's limit in Redis, nothing more is taken here: one budget, counted once.
  const authenticator = new Authenticator(
    store,
    () => options.current().tokens,
    shared ? { requestsPerMinute, take: () => 0 } : new RateLimiter(requestsPerMinute),
  );
  const limited = shared && { sharedRateLimit: sharedRateLimit(authenticator, shared) };
  if (!loopback) {
    if (!authenticator.hasTokens())
      throw new HttpAccessError(
        `refusing to listen on ${options.host}: no token exists, so no client could use it. Create one with toolmesh token create --name NAME, then start again.`,
      );
    return { authenticator, ...limited };
  }
  const token = await localToken(store, localTokenFile(options.dataDir), options.auth.tokens.length);
  return { authenticator, ...limited, ...(token && { localToken: token }) };
}
