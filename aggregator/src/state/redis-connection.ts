import { Redis } from 'ioredis';
import type { ConnectionHealth } from './state.js';
import { StateUnavailableError, withoutCredentials } from './state-unavailable.js';

/** How long one command may take before a stalled Redis counts as unavailable. */
const COMMAND_TIMEOUT_MS = 2000;

/** What to do about a Redis error, by what it says. */
export function redisFix(message: string): string {
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|connect/i.test(message))
    return 'check that Redis runs at that address (redis-cli -u URL ping) and that state.redis or --redis names it';
  if (/NOAUTH|WRONGPASS|invalid password|AUTH/i.test(message))
    return 'put the right user and password in the URL (redis://user:password@host:6379)';
  if (/DB index|invalid DB/i.test(message))
    return 'use a database number the server has (redis://host:6379/0)';
  return 'check the URL in state.redis or --redis, and the Redis server log';
}

/**
 * A Redis connection that fails fast instead of queueing: with Redis gone, a command fails at
 * once (or after a 2 s stall) with a StateUnavailableError, never waits forever nor falls back
 * to memory. It reconnects by itself, so serving resumes when Redis is back.
 */
export async function connectRedis(url: string): Promise<Redis> {
  const where = withoutCredentials(url);
  let lastError: Error | undefined;
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: COMMAND_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
  // ioredis prints unhandled connection errors itself; they are reported by the commands that fail.
  client.on('error', (error: Error) => {
    lastError = error;
  });
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    const message = (lastError ?? (error as Error)).message;
    throw new StateUnavailableError(
      'redis',
      `cannot connect to Redis at ${where} for toolmesh's shared state: ${message}; ${redisFix(message)}`,
      { cause: error },
    );
  }
  return client;
}

/** Runs a command; a connection failure becomes a StateUnavailableError that says the operation did not happen. */
export async function redisCall<T>(where: string, command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    const message = (error as Error).message;
    throw new StateUnavailableError(
      'redis',
      `toolmesh's shared state in Redis at ${where} did not answer (${message}), so nothing was done; ${redisFix(message)}. toolmesh reconnects by itself: retry shortly.`,
      { cause: error },
    );
  }
}

/** PING with its round-trip time, for /health and doctor. */
export async function redisHealth(client: Redis, where: string): Promise<ConnectionHealth> {
  const started = performance.now();
  try {
    const answer = await client.ping();
    return { ok: true, detail: `${answer} from ${where} in ${(performance.now() - started).toFixed(1)} ms` };
  } catch (error) {
    const message = (error as Error).message;
    return { ok: false, detail: `Redis at ${where} does not answer: ${message}; ${redisFix(message)}` };
  }
}

/**
 * What a shared store in Redis holds: a connection for commands, and one subscribed to the
 * channels on which replicas announce their changes (a subscribed connection takes no other
 * command). Both fail fast and reconnect by themselves (connectRedis).
 */
export class RedisConnections {
  private constructor(
    readonly client: Redis,
    readonly subscriber: Redis,
  ) {}

  /** Connects both and subscribes; each message goes to its channel's handler. */
  static async open(
    url: string,
    channels: Record<string, (message: string) => void>,
  ): Promise<RedisConnections> {
    const client = await connectRedis(url);
    let subscriber: Redis;
    try {
      subscriber = await connectRedis(url);
    } catch (error) {
      client.disconnect();
      throw error;
    }
    const connections = new RedisConnections(client, subscriber);
    subscriber.on('message', (channel: string, message: string) => channels[channel]?.(message));
    try {
      await redisCall(withoutCredentials(url), () => subscriber.subscribe(...Object.keys(channels)));
    } catch (error) {
      await connections.close();
      throw error;
    }
    return connections;
  }

  async close(): Promise<void> {
    this.subscriber.disconnect();
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
