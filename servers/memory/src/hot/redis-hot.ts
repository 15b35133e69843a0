import { errorMessage, ToolError } from '@toolmesh/core';
import { Redis } from 'ioredis';
import { type Clock, isoAt } from '../store/clock.js';
import { type HotItem, type HotMemory, type HotScope, hotRef, type NewHotItem } from './hot-memory.js';

// Adds an item, then drops from the identity's list the ids whose item expired (natively, or by
// the server's clock) and those past the cap, oldest last in the list. One script, so two
// processes adding at once cannot both keep an item the cap should have evicted.
const ADD_SCRIPT = `
local id = redis.call('INCR', KEYS[3])
local prefix = ARGV[1]
local key = prefix .. id
redis.call('HSET', key, 'identity', ARGV[2], 'text', ARGV[3], 'durable', ARGV[4], 'created', ARGV[5], 'expires', ARGV[6], 'recalls', 0, 'domain', ARGV[9])
redis.call('PEXPIRE', key, ARGV[7])
redis.call('LPUSH', KEYS[1], id)
redis.call('SADD', KEYS[2], ARGV[2])
local now = tonumber(ARGV[5])
for _, old in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local expires = redis.call('HGET', prefix .. old, 'expires')
  if not expires or tonumber(expires) <= now then
    redis.call('LREM', KEYS[1], 0, old)
    redis.call('DEL', prefix .. old)
  end
end
local cap = tonumber(ARGV[8])
local evicted = redis.call('LRANGE', KEYS[1], cap, -1)
if #evicted > 0 then
  redis.call('LTRIM', KEYS[1], 0, cap - 1)
  for _, old in ipairs(evicted) do redis.call('DEL', prefix .. old) end
end
return {id, evicted}
`;

// Counts a recall only of an item still there: HINCRBY alone would bring an expired one back.
const RECALL_SCRIPT = `
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then redis.call('HINCRBY', key, 'recalls', 1) end
end
return 0
`;

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
    this.redis = new Redis(options.url, {
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
    return [this.options.keyPrefix, encodeURIComponent(workspace), ...parts].join(':');
  }

  private itemPrefix(workspace: string): string {
    return `${this.key(workspace, 'item')}:`;
  }

  private listKey(scope: HotScope): string {
    return this.key(scope.workspace, 'list', encodeURIComponent(scope.identity));
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
    const [id, evicted] = (await this.use((redis) =>
      redis.eval(
        ADD_SCRIPT,
        3,
        this.listKey(scope),
        this.key(scope.workspace, 'identities'),
        this.key(scope.workspace, 'seq'),
        this.itemPrefix(scope.workspace),
        scope.identity,
        item.text,
        item.durable ? '1' : '0',
        String(now),
        String(now + item.ttlMs),
        String(item.ttlMs),
        String(this.options.maxItemsPerIdentity),
        item.domain,
      ),
    )) as [number, string[]];
    return {
      item: {
        id: hotRef(id),
        identity: scope.identity,
        domain: item.domain,
        text: item.text,
        durable: item.durable,
        createdAt: isoAt(now),
        expiresAt: isoAt(now + item.ttlMs),
        recalls: 0,
      },
      evicted: evicted
        .map(Number)
        .sort((a, b) => a - b)
        .map(hotRef),
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
        live.push({
          id: hotRef(id),
          identity: hash.identity ?? '',
          domain: hash.domain ?? 'general',
          text: hash.text,
          durable: hash.durable === '1',
          createdAt: isoAt(Number(hash.created)),
          expiresAt: isoAt(expires),
          recalls: Number(hash.recalls ?? 0),
        });
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
