import { redisKeyPrefix } from '../state/shared-names.js';
import { type TokenRegistry, TokenStore, tokenStoreFile } from './token-store.js';

/**
 * The tokens `toolmesh token` manages: the fleet's, in Redis, when the state is there (every
 * replica must refuse a revoked token), else the file in the data directory.
 */
export async function openTokenRegistry(options: {
  dataDir: string;
  redis?: string;
  redisKeyPrefix?: string;
}): Promise<TokenRegistry> {
  if (!options.redis) return new TokenStore(tokenStoreFile(options.dataDir));
  const { RedisTokenStore } = await import('./redis-token-store.js');
  return RedisTokenStore.open(options.redis, { keyPrefix: redisKeyPrefix(options.redisKeyPrefix) });
}
