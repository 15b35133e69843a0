import { createRequire } from 'node:module';
import { errorMessage, requireOptionalPeers, ToolError } from '@toolmesh/core';
import type { Redis } from 'ioredis';
import { type Clock, isoAt } from '../store/clock.js';
import { type HotItem, type HotMemory, type HotScope, hotRef, type NewHotItem } from './hot-memory.js';

// Drops from the identity's list the ids whose item expired (natively, or by the server's clock);
// then counts a recall of a live item with the same text key (durable once either call asked it),
// or adds the item and evicts the oldest past the cap. One script, so two processes remembering at once stay within the cap and
// never keep two copies of one note. KEYS: list, identities, sequence, text index.
const ADD_SCRIPT = `
local prefix = ARGV[1]
local now = tonumber(ARGV[5])
for _, old in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local expires = redis.call('HGET', prefix .. old, 'expires')
  if not expires or tonumber(expires) <= now then
    redis.call('LREM', KEYS[1], 0, old)
    redis.call('DEL', prefix .. old)
  end
end
local same = redis.call('HGET', KEYS[4], ARGV[10])
if same and redis.call('EXISTS', prefix .. same) == 1 then
  redis.call('HINCRBY', prefix .. same, 'recalls', 1)
  redis.call('HSET', prefix .. same, 'noted', ARGV[5])
  if ARGV[4] == '1' then redis.call('HSET', prefix .. same, 'durable', '1') end
  return {tonumber(same), {}, 1, redis.call('HGETALL', prefix .. same)}
end
local id = redis.call('INCR', KEYS[3])
local key = prefix .. id
redis.call('HSET', key, 'identity', ARGV[2], 'text', ARGV[3], 'durable', ARGV[4], 'created', ARGV[5],
  'expires', ARGV[6], 'recalls', 0, 'domain', ARGV[9], 'key', ARGV[10])
redis.call('PEXPIRE', key, ARGV[7])
redis.call('LPUSH', KEYS[1], id)
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[4], ARGV[10], id)
if redis.call('PTTL', KEYS[4]) < tonumber(ARGV[7]) then redis.call('PEXPIRE', KEYS[4], ARGV[7]) end
local cap = tonumber(ARGV[8])
local evicted = redis.call('LRANGE', KEYS[1], cap, -1)
if #evicted > 0 then
  redis.call('LTRIM', KEYS[1], 0, cap - 1)
  for _, old in ipairs(evicted) do
    local oldKey = redis.call('HGET', prefix .. old, 'key')
    if oldKey and redis.call('HGET', KEYS[4], oldKey) == old then redis.call('HDEL', KEYS[4], oldKey) end
    redis.call('DEL', prefix .. old)
  end
end
-- Index entries of items that expired natively are pruned once they outnumber the cap.
if redis.call('HLEN', KEYS[4]) > 2 * cap then
  local index = redis.call('HGETALL', KEYS[4])
  for i = 1, #index, 2 do
    if redis.call('EXISTS', prefix .. index[i + 1]) == 0 then redis.call('HDEL', KEYS[4], index[i]) end
  end
end
return {id, evicted, 0, {}}
`;

// Counts a recall only of an item still there: HINCRBY alone would bring an expired one back.
const RECALL_SCRIPT = `
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then redis.call('HINCRBY', key, 'recalls', 1) end
end
return 0
`;

function toItem(id: string, hash: Record<string, string>): HotItem {
  return {
    id: hotRef(id),
    identity: hash.identity ?? '',
    domain: hash.domain ?? 'general',
    text: hash.text ?? '',
    durable: hash.durable === '1',
    createdAt: isoAt(Number(hash.created)),
    notedAt: isoAt(Number(hash.noted ?? hash.created)),
    expiresAt: isoAt(Number(hash.expires)),
    recalls: Number(hash.recalls ?? 0),
  };
}

/**
 * A name as one segment of a key. Lone surrogates (encodeURIComponent throws on them) become
 * U+FFFD, as they do in the SQLite file, so an identity is the same one in either backend.
 */
function keySegment(name: string): string {
  return encodeURIComponent(name.replace(/\p{Cs}/gu, '\uFFFD'));
}

/** A Redis URL fit for messages and logs: no password. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

export interface RedisHotOptions {
  url: string;
  /** Prefix of every key, so several deployments (or test runs) share one Redis. */
  keyPrefix: string;
  clock: Clock;
  maxItemsPerIdentity: number;
  /** How long a call waits for a connection still being made before it says Redis is down. */
  connectWaitMs?: number;
  onError?: (message: string) => void;
}

/**
 * Hot memory in Redis: one hash per item with native expiry, and per identity a list of item ids
 * capped at the limit. Every server process pointed at the same Redis and prefix sees the same items.
 */
export class RedisHotMemory implements HotMemory {
  readonly backend = 'redis';
  private readonly redis: Redis;
  private lastError = '';

  constructor(private readonly options: RedisHotOptions) {
    // ioredis is an optional peer: only hot memory in Redis needs it.
    requireOptionalPeers(import.meta.url, ['ioredis'], 'hot memory in Redis (--redis) needs ioredis');
    const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    this.redis = new RedisClient(options.url, {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      retryStrategy: (times) => Math.min(200 * times, 2000),
    });
    this.redis.on('error', (error: Error) => {
      const message = errorMessage(error);
      if (message !== this.lastError) options.onError?.(message);
      this.lastError = message;
    });
  }

  private key(workspace: string, ...parts: string[]): string {
    return [this.options.keyPrefix, keySegment(workspace), ...parts].join(':');
  }

  private itemPrefix(workspace: string): string {
    return `${this.key(workspace, 'item')}:`;
  }

  private listKey(scope: HotScope): string {
    return this.key(scope.workspace, 'list', keySegment(scope.identity));
  }

  /** Runs a Redis call; a connection that is down becomes a ToolError that says so. */
  private async use<T>(call: (redis: Redis) => Promise<T>): Promise<T> {
    // Only the first connection is waited for; once Redis has failed, calls fail fast until it is back.
    if (this.redis.status !== 'ready' && this.lastError === '') {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.redis.off('ready', done);
          this.redis.off('error', done);
          resolve();
        };
        const timer = setTimeout(done, this.options.connectWaitMs ?? 1500);
        this.redis.once('ready', done);
        this.redis.once('error', done);
      });
    }
    try {
      if (this.redis.status !== 'ready') throw new Error(this.lastError || `connection ${this.redis.status}`);
      return await call(this.redis);
    } catch (error) {
      throw new ToolError(
        `hot memory is unavailable: Redis at ${redactedUrl(this.options.url)} does not answer (${errorMessage(error)}). Facts, policies, observations, notes and search still work; start Redis, or restart the server without --redis to keep hot memory in SQLite.`,
        'hot_memory_unavailable',
      );
    }
  }

  async add(scope: HotScope, item: NewHotItem) {
    const now = this.options.clock();
    const [id, evicted, repeated, fields] = (await this.use((redis) =>
      redis.eval(
        ADD_SCRIPT,
        4,
        this.listKey(scope),
        this.key(scope.workspace, 'identities'),
        this.key(scope.workspace, 'seq'),
        this.key(scope.workspace, 'texts', keySegment(scope.identity)),
        this.itemPrefix(scope.workspace),
        scope.identity,
        item.text,
        item.durable ? '1' : '0',
        String(now),
        String(now + item.ttlMs),
        String(item.ttlMs),
        String(this.options.maxItemsPerIdentity),
        item.domain,
        item.key,
      ),
    )) as [number, string[], number, string[]];
    if (repeated === 1) {
      const hash: Record<string, string> = {};
      for (let i = 0; i < fields.length; i += 2) hash[fields[i] as string] = fields[i + 1] as string;
      return { item: toItem(String(id), hash), evicted: [], repeated: true };
    }
    return {
      item: {
        id: hotRef(id),
        identity: scope.identity,
        domain: item.domain,
        text: item.text,
        durable: item.durable,
        createdAt: isoAt(now),
        notedAt: isoAt(now),
        expiresAt: isoAt(now + item.ttlMs),
        recalls: 0,
      },
      evicted: evicted
        .map(Number)
        .sort((a, b) => a - b)
        .map(hotRef),
      repeated: false,
    };
  }

  /** The live items of one list, newest first, after dropping the ids of expired ones from it. */
  private async readList(workspace: string, listKey: string): Promise<{ live: HotItem[]; expired: number }> {
    return this.use(async (redis) => {
      const ids = await redis.lrange(listKey, 0, -1);
      const pipeline = redis.pipeline();
      for (const id of ids) pipeline.hgetall(`${this.itemPrefix(workspace)}${id}`);
      const hashes = ((await pipeline.exec()) ?? []).map(([, value]) => value as Record<string, string>);
      const now = this.options.clock();
      const live: HotItem[] = [];
      const gone: string[] = [];
      ids.forEach((id, index) => {
        const hash = hashes[index];
        const expires = Number(hash?.expires);
        if (!hash?.text || !(expires > now)) {
          gone.push(id);
          return;
        }
        live.push(toItem(id, hash));
      });
      if (gone.length > 0) {
        const cleanup = redis.multi();
        for (const id of gone) {
          cleanup.lrem(listKey, 0, id);
          cleanup.del(`${this.itemPrefix(workspace)}${id}`);
        }
        await cleanup.exec();
      }
      return { live, expired: gone.length };
    });
  }

  async list(scope: HotScope): Promise<HotItem[]> {
    return (await this.readList(scope.workspace, this.listKey(scope))).live;
  }

  async recall(workspace: string, items: readonly HotItem[]): Promise<void> {
    if (items.length === 0) return;
    const keys = items.map((item) => `${this.itemPrefix(workspace)}${item.id.slice(2)}`);
    await this.use((redis) => redis.eval(RECALL_SCRIPT, keys.length, ...keys));
  }

  async sweep(workspace: string) {
    const identities = await this.use((redis) => redis.smembers(this.key(workspace, 'identities')));
    const live: HotItem[] = [];
    let expired = 0;
    for (const identity of identities.sort()) {
      const list = await this.readList(workspace, this.listKey({ workspace, identity }));
      live.push(...list.live.reverse());
      expired += list.expired;
    }
    return { live, expired };
  }

  async remove(workspace: string, items: readonly HotItem[]): Promise<void> {
    if (items.length === 0) return;
    await this.use(async (redis) => {
      const batch = redis.multi();
      for (const item of items) {
        const id = item.id.slice(2);
        batch.lrem(this.listKey({ workspace, identity: item.identity }), 0, id);
        batch.del(`${this.itemPrefix(workspace)}${id}`);
      }
      await batch.exec();
    });
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
