import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from '@toolmesh/core';
import type { Redis } from 'ioredis';

/** How a replica's heartbeat reads in Redis. */
export interface ReplicaBeat {
  url: string;
  draining: boolean;
}

export interface LeaseTiming {
  /** How long a heartbeat lives in Redis unless renewed. */
  ttlMs: number;
  /** How often it is renewed. */
  renewMs: number;
}

export const DEFAULT_LEASE_TIMING: LeaseTiming = { ttlMs: 9000, renewMs: 1000 };

// Deletes a replica's heartbeat only while it still reads as it did: never a newer one.
const DELETE_IF_SAME = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * This replica's heartbeat in Redis, and the lease it stands for: while the lease holds, the
 * replica may serve the sessions it owns. It counts from when a renewal was *sent*, and lapses
 * a third of the TTL before the key can expire, so the replica stops serving before any other
 * may take its sessions over: no session ever has two owners.
 */
export class ReplicaLease {
  readonly id = `r-${randomBytes(6).toString('hex')}`;
  #confirmedAt = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;
  #draining = false;
  #url = '';
  #held = false;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly timing: LeaseTiming,
    private readonly log: Logger,
    /** Told when the lease lapsed (the replica must drop its sessions) and when it holds again. */
    private readonly onChange: (held: boolean) => void,
  ) {}

  keyOf(replica: string): string {
    return `${this.prefix}replica:${replica}`;
  }

  get heartbeatPrefix(): string {
    return `${this.prefix}replica:`;
  }

  /**
   * The replicas of the fleet, a set each renewal adds its replica to: how replicas find each
   * other without a SCAN of the keyspace. A replica stays listed after it stopped until its
   * unfinished calls were taken (InFlightMarks.takeFromDead).
   */
  get listKey(): string {
    return `${this.prefix}replicas`;
  }

  /** Whether this replica may serve sessions now. */
  get valid(): boolean {
    return performance.now() - this.#confirmedAt < (this.timing.ttlMs * 2) / 3;
  }

  /** Takes the lease; rejects when Redis does not answer, so a replica never starts unfenced. */
  async start(url: string): Promise<void> {
    this.#url = url;
    await this.#renew();
    this.#held = true;
    this.#timer = setInterval(() => void this.#tick(), this.timing.renewMs);
    this.#timer.unref();
  }

  /** Renews the heartbeat now, not at the next tick (Redis came back, and lost it). */
  renewNow(): Promise<void> {
    return this.#renew();
  }

  set draining(draining: boolean) {
    this.#draining = draining;
    void this.#renew().catch(() => undefined);
  }

  async #renew(): Promise<void> {
    const sentAt = performance.now();
    // Listed again at each renewal: Redis may have restarted empty, or struck a stalled replica off.
    const results = await this.redis
      .pipeline()
      .set(this.keyOf(this.id), this.#beat(), 'PX', this.timing.ttlMs)
      .sadd(this.listKey, this.id)
      .exec();
    const failed = results?.find(([error]) => error)?.[0];
    if (failed) throw failed;
    this.#confirmedAt = Math.max(this.#confirmedAt, sentAt);
  }

  #beat(): string {
    return JSON.stringify({ url: this.#url, draining: this.#draining } satisfies ReplicaBeat);
  }

  async #tick(): Promise<void> {
    // First whether the lease lapsed since the last tick (this process stood still, or Redis was
    // away): its sessions go before the renewal below makes it valid again, since another replica
    // may have taken them over meanwhile.
    this.check();
    try {
      await this.#renew();
    } catch (error) {
      this.log.debug(`fleet heartbeat not renewed: ${(error as Error).message}`);
    }
    this.check();
  }

  /** Notices a lapsed or regained lease; the request path calls it too, between renewals. */
  check(): boolean {
    const valid = this.valid;
    if (valid !== this.#held) {
      this.#held = valid;
      if (valid) this.log.info(`fleet: replica ${this.id} holds its lease in Redis again`);
      else
        this.log.warning(
          `fleet: replica ${this.id} could not renew its heartbeat in Redis: it serves no session until it can`,
        );
      this.onChange(valid);
    }
    return valid;
  }

  /** Another replica's heartbeat; undefined when it has none (it stopped, or never was). */
  async beatOf(replica: string): Promise<ReplicaBeat | undefined> {
    const raw = await this.redis.get(this.keyOf(replica));
    return raw ? (JSON.parse(raw) as ReplicaBeat) : undefined;
  }

  /** How long ago `replica` last renewed its heartbeat, by Redis's clock; undefined when it has none. */
  async renewedAgo(replica: string): Promise<number | undefined> {
    const left = await this.redis.pttl(this.keyOf(replica));
    return left < 0 ? undefined : this.timing.ttlMs - left;
  }

  /** Replicas alive and not draining, this one excepted. */
  async others(): Promise<Array<{ id: string } & ReplicaBeat>> {
    const ids = (await this.redis.smembers(this.listKey)).filter((id) => id !== this.id);
    const beats = ids.length > 0 ? await this.redis.mget(ids.map((id) => this.keyOf(id))) : [];
    return ids.flatMap((id, index) => {
      const raw = beats[index];
      if (!raw) return [];
      const beat = JSON.parse(raw) as ReplicaBeat;
      return beat.draining ? [] : [{ id, ...beat }];
    });
  }

  /**
   * Ends another replica's heartbeat when its address refused a connection: nothing listens
   * there, so it serves nothing, and its sessions may be taken over at once.
   */
  async declareGone(replica: string, beat: ReplicaBeat): Promise<void> {
    await this.redis.eval(DELETE_IF_SAME, 1, this.keyOf(replica), JSON.stringify(beat));
  }

  /** Gives the lease up: the replica is leaving. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#confirmedAt = Number.NEGATIVE_INFINITY;
    await this.redis.eval(DELETE_IF_SAME, 1, this.keyOf(this.id), this.#beat()).catch(() => undefined);
  }
}
