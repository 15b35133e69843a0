import type { Redis } from 'ioredis';
import { RedisConnections, redisCall } from '../state/redis-connection.js';
import { StateUnavailableError, withoutCredentials } from '../state/state-unavailable.js';
import { newTokenSecret } from './token-secret.js';
import {
  type NewToken,
  nameTaken,
  newTokenRecord,
  type TokenRecord,
  type TokenRegistry,
} from './token-store.js';

/** How often the copy in memory is read again, besides when a change is announced. */
const REFRESH_MS = 400;
/**
 * A copy older than this is not trusted: a revocation may have been missed, so requests are
 * refused (503) until Redis answers again. Together with REFRESH_MS it bounds a revocation's
 * reach to every replica to about a second even when an announcement is lost.
 */
const STALE_MS = 1500;

/** Where a replica announces that it changed the tokens. */
const changesChannel = (prefix: string) => `${prefix}tokens:changed`;

export interface RedisTokenStoreOptions {
  /** The state's key prefix: the tokens are `<prefix>tokens`, changes announced on `<prefix>tokens:changed`. */
  keyPrefix?: string;
}

/**
 * The tokens of a fleet in one Redis hash (name → record), shared by every replica. Each replica
 * answers from a copy in memory, read again when any replica announces a change (pub/sub) and
 * every 400 ms all the same, so a token revoked anywhere is refused everywhere within a second.
 */
export class RedisTokenStore implements TokenRegistry {
  readonly location: string;
  readonly #connections: RedisConnections;
  readonly #client: Redis;
  readonly #key: string;
  readonly #channel: string;
  readonly #timer: NodeJS.Timeout;
  #records: TokenRecord[] = [];
  #readAt = 0;
  #closed = false;
  #reading: Promise<void> | undefined;

  private constructor(url: string, connections: RedisConnections, prefix: string) {
    this.location = withoutCredentials(url);
    this.#connections = connections;
    this.#client = connections.client;
    this.#key = `${prefix}tokens`;
    this.#channel = changesChannel(prefix);
    this.#timer = setInterval(() => void this.#refresh().catch(() => undefined), REFRESH_MS);
    this.#timer.unref();
  }

  static async open(url: string, options: RedisTokenStoreOptions = {}): Promise<RedisTokenStore> {
    const prefix = options.keyPrefix ?? 'toolmesh:';
    let store: RedisTokenStore | undefined;
    const connections = await RedisConnections.open(url, {
      [changesChannel(prefix)]: () => {
        if (store) void store.#refresh().catch(() => undefined);
      },
    });
    store = new RedisTokenStore(url, connections, prefix);
    try {
      await store.#refresh();
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  async #refresh(): Promise<void> {
    const startedAt = Date.now();
    const fields = await redisCall(this.location, () => this.#client.hgetall(this.#key));
    this.#records = Object.values(fields).map((json) => JSON.parse(json) as TokenRecord);
    this.#readAt = Math.max(this.#readAt, startedAt);
  }

  async freshen(): Promise<void> {
    // Older than two refreshes: the timer was held up (a busy machine) or Redis is away. One read
    // for every request waiting; when it fails, list() refuses as before.
    if (Date.now() - this.#readAt <= 2 * REFRESH_MS) return;
    this.#reading ??= this.#refresh()
      .catch(() => undefined)
      .finally(() => {
        this.#reading = undefined;
      });
    await this.#reading;
  }

  list(): TokenRecord[] {
    const age = Date.now() - this.#readAt;
    if (age > STALE_MS)
      throw new StateUnavailableError(
        'redis',
        `toolmesh's tokens in Redis at ${this.location} were last read ${Math.round(age / 1000)} s ago, so a revocation may have been missed: requests are refused until Redis answers again. Check that Redis runs.`,
      );
    return this.#records;
  }

  async create(token: NewToken, secret = newTokenSecret()): Promise<{ secret: string; record: TokenRecord }> {
    const record = newTokenRecord(token, secret, []);
    // HSETNX: of two replicas making the same name at once, one gets it.
    const made = await redisCall(this.location, () =>
      this.#client.hsetnx(this.#key, record.name, JSON.stringify(record)),
    );
    if (made === 0) throw nameTaken(record.name);
    await this.#announce();
    return { secret, record };
  }

  async revoke(name: string): Promise<boolean> {
    const removed = await redisCall(this.location, () => this.#client.hdel(this.#key, name));
    if (removed === 0) return false;
    await this.#announce();
    return true;
  }

  async #announce(): Promise<void> {
    await redisCall(this.location, () => this.#client.publish(this.#channel, 'changed'));
    await this.#refresh();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#connections.close();
  }
}
