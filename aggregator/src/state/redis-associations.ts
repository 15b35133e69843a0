import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Association } from '../discovery/learned-associations.js';
import type { AssociationChange, AssociationStore } from './association-store.js';
import { redisCall } from './redis-connection.js';

/** What one replica announces to the others: a change, and who made it (so it skips its own). */
interface Announcement {
  from: string;
  change: AssociationChange;
}

/**
 * What discovery learns from use, in the fleet's Redis: one hash of `term tool` → `strength at`,
 * and a channel on which each replica announces what it wrote, so every replica lifts by what
 * any of them learnt without reading the hash again. Two replicas reinforcing one link at the
 * same moment keep the later write (a use may go uncounted); learning is a hint, not a ledger.
 * The connections are the state's (see `RedisState.associationStore`): closing this store only
 * stops listening.
 */
export class RedisAssociationStore implements AssociationStore {
  readonly #client: Redis;
  readonly #key: string;
  readonly #channel: string;
  readonly #where: string;
  readonly #self = randomUUID();
  #listener: ((change: AssociationChange) => void) | undefined;

  constructor(client: Redis, options: { key: string; channel: string; where: string }) {
    this.#client = client;
    this.#key = options.key;
    this.#channel = options.channel;
    this.#where = options.where;
  }

  async all(): Promise<Association[]> {
    const fields = await this.#call((client) => client.hgetall(this.#key));
    const associations: Association[] = [];
    for (const [field, value] of Object.entries(fields)) {
      const [term, tool] = field.split(' ');
      const [strength, at] = value.split(' ').map(Number);
      if (term && tool && Number.isFinite(strength) && Number.isFinite(at))
        associations.push({ term, tool, strength: strength!, at: at! });
    }
    return associations;
  }

  async put(associations: readonly Association[]): Promise<void> {
    if (associations.length === 0) return;
    const fields = associations.flatMap(({ term, tool, strength, at }) => [
      `${term} ${tool}`,
      `${strength} ${at}`,
    ]);
    await this.#call((client) =>
      client
        .multi()
        .hset(this.#key, ...fields)
        .publish(this.#channel, this.#announce({ put: [...associations] }))
        .exec(),
    );
  }

  async remove(associations: readonly Pick<Association, 'term' | 'tool'>[]): Promise<void> {
    if (associations.length === 0) return;
    const removed = associations.map(({ term, tool }) => ({ term, tool }));
    await this.#call((client) =>
      client
        .multi()
        .hdel(this.#key, ...removed.map(({ term, tool }) => `${term} ${tool}`))
        .publish(this.#channel, this.#announce({ removed }))
        .exec(),
    );
  }

  async clear(): Promise<void> {
    await this.#call((client) =>
      client
        .multi()
        .del(this.#key)
        .publish(this.#channel, this.#announce({ cleared: true }))
        .exec(),
    );
  }

  watch(listener: (change: AssociationChange) => void): void {
    this.#listener = listener;
  }

  /** A message on the channel: another replica's change goes to the listener, this one's own is skipped. */
  received(message: string): void {
    let announcement: Announcement;
    try {
      announcement = JSON.parse(message) as Announcement;
    } catch {
      return;
    }
    if (announcement.from !== this.#self) this.#listener?.(announcement.change);
  }

  async close(): Promise<void> {
    this.#listener = undefined;
  }

  #announce(change: AssociationChange): string {
    return JSON.stringify({ from: this.#self, change } satisfies Announcement);
  }

  #call<T>(command: (client: Redis) => Promise<T>): Promise<T> {
    return redisCall(this.#where, () => command(this.#client));
  }
}
