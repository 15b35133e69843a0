import type { Redis } from 'ioredis';
import { connectRedis, redisCall } from '../state/redis-connection.js';
import { withoutCredentials } from '../state/state-unavailable.js';

/**
 * One caller's token bucket, taken from in one step on the server, on the server's clock (one
 * clock for the whole fleet). KEYS: the bucket. ARGV: requests per minute. Returns 0 when the
 * request may go ahead, else the milliseconds until it could.
 */
const TAKE = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local allowance = tonumber(ARGV[1])
local perMs = allowance / 60000
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens'))
local refilledAt = tonumber(redis.call('HGET', KEYS[1], 'at'))
if tokens == nil or refilledAt == nil then
  tokens = allowance
  refilledAt = now
end
tokens = math.min(allowance, tokens + math.max(0, now - refilledAt) * perMs)
local waitMs = 0
if tokens >= 1 then
  tokens = tokens - 1
else
  waitMs = math.ceil((1 - tokens) / perMs)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], 120000)
return waitMs`;

type TakeCommand = (bucket: string, allowance: number) => Promise<number>;

/**
 * Requests per minute per caller as one budget for every replica: the same token bucket as
 * RateLimiter, kept in Redis and taken from atomically, so three replicas together accept no
 * more than one would.
 */
export class RedisRateLimiter {
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #location: string;

  private constructor(
    url: string,
    client: Redis,
    prefix: string,
    /** Read on every request, so a reloaded config applies at once. */
    readonly requestsPerMinute: () => number,
  ) {
    this.#location = withoutCredentials(url);
    this.#client = client;
    this.#prefix = prefix;
    client.defineCommand('toolmeshTakeToken', { numberOfKeys: 1, lua: TAKE });
  }

  static async open(
    url: string,
    requestsPerMinute: () => number,
    options: { keyPrefix?: string } = {},
  ): Promise<RedisRateLimiter> {
    return new RedisRateLimiter(
      url,
      await connectRedis(url),
      options.keyPrefix ?? 'toolmesh:',
      requestsPerMinute,
    );
  }

  /** Takes one request from `caller`'s allowance: 0 when it may go ahead, else the seconds to wait. */
  async take(caller: string): Promise<number> {
    const take = (this.#client as unknown as { toolmeshTakeToken: TakeCommand }).toolmeshTakeToken;
    const waitMs = await redisCall(this.#location, () =>
      take.call(this.#client, `${this.#prefix}ratelimit:${caller}`, this.requestsPerMinute()),
    );
    return waitMs === 0 ? 0 : Math.max(1, Math.ceil(waitMs / 1000));
  }

  async close(): Promise<void> {
    await this.#client.quit().catch(() => this.#client.disconnect());
  }
}
