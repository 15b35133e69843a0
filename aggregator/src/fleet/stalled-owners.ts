import { TargetStalled } from './forward-request.js';
import type { ReplicaLease } from './replica-lease.js';

/**
 * How many checks in a row must find a replica's heartbeat unrenewed for a third of its TTL
 * before the requests waiting on it give up: one late renewal on a busy machine is not a stall.
 */
const STALE_CHECKS = 2;

/** Tells a forward waiting on a replica found stalled to give up, saying why. */
export type GiveUp = (why: TargetStalled) => void;

/** What a watched replica was last seen to be, and the forwards waiting on it. */
interface Watch {
  /** A plain set, not an AbortSignal's listeners: adding and removing one is most of what a forward costs here. */
  waiting: Set<GiveUp>;
  staleChecks: number;
  timer: NodeJS.Timeout;
}

/**
 * The replicas this one forwards requests to, watched while a request waits on one: a replica
 * that stopped running (SIGSTOP, a frozen VM) still accepts connections, so nothing but its
 * heartbeat says it will never answer. One that has not renewed its heartbeat for a third of
 * the TTL, at two checks in a row, is stalled: the requests waiting on it give up (the signal
 * aborts, its reason saying why), and new requests for it are refused at once while it stays so.
 */
export class StalledOwners {
  readonly #watches = new Map<string, Watch>();
  /** Replicas found stalled, until a check finds their heartbeat renewed or gone. */
  readonly #stalled = new Set<string>();

  constructor(
    private readonly lease: ReplicaLease,
    private readonly ttlMs: number,
    private readonly checkEveryMs: number,
  ) {}

  /**
   * Watches `replica` while a request waits on it: `giveUp` is called should it be found stalled
   * meanwhile. Returns what to call when the request ended.
   */
  watch(replica: string, giveUp: GiveUp): () => void {
    let watch = this.#watches.get(replica);
    if (!watch) {
      const created: Watch = {
        waiting: new Set(),
        staleChecks: 0,
        timer: setInterval(() => void this.#check(replica, created), this.checkEveryMs),
      };
      created.timer.unref();
      this.#watches.set(replica, created);
      watch = created;
    }
    const { waiting } = watch;
    waiting.add(giveUp);
    // The watch stays until its next check finds nothing waiting: forwards one after the other
    // (most are a millisecond long) share one timer rather than each making its own.
    return () => waiting.delete(giveUp);
  }

  /** Whether `replica` was found stalled: then stillStalled says whether it still is. */
  suspects(replica: string): boolean {
    return this.#stalled.has(replica);
  }

  /**
   * Why `replica` cannot answer now, when it was found stalled and its heartbeat still says so
   * (one read of it); undefined when it may be asked.
   */
  async stillStalled(replica: string): Promise<TargetStalled | undefined> {
    if (!this.#stalled.has(replica)) return undefined;
    const renewedAgo = await this.lease.renewedAgo(replica);
    if (renewedAgo !== undefined && this.#isStale(renewedAgo)) return this.#why(replica, renewedAgo);
    this.#stalled.delete(replica);
    return undefined;
  }

  #isStale(renewedAgo: number): boolean {
    return renewedAgo > this.ttlMs / 3;
  }

  #why(replica: string, renewedAgo: number): TargetStalled {
    const expiresIn = Math.max(1, Math.ceil((this.ttlMs - renewedAgo) / 1000));
    return new TargetStalled(
      `The toolmesh replica serving this session (${replica}) stopped answering: it has not renewed its heartbeat for ${Math.round(renewedAgo / 1000)} s. A request sent to it may or may not have run. Retry in ${expiresIn} s: once its heartbeat expires, another replica takes the session over.`,
      expiresIn,
    );
  }

  async #check(replica: string, watch: Watch): Promise<void> {
    if (watch.waiting.size === 0) return this.#unwatch(replica, watch);
    const renewedAgo = await this.lease.renewedAgo(replica).catch(() => null);
    // Redis not answering says nothing of the replica (and the fleet refuses service meanwhile);
    // a heartbeat gone is left to the forward's own failure, or to Redis restarting empty.
    if (renewedAgo === null || renewedAgo === undefined || !this.#isStale(renewedAgo)) {
      watch.staleChecks = 0;
      return;
    }
    if (++watch.staleChecks < STALE_CHECKS || this.#watches.get(replica) !== watch) return;
    this.#stalled.add(replica);
    this.#unwatch(replica, watch);
    const why = this.#why(replica, renewedAgo);
    for (const giveUp of watch.waiting) giveUp(why);
  }

  #unwatch(replica: string, watch: Watch): void {
    clearInterval(watch.timer);
    if (this.#watches.get(replica) === watch) this.#watches.delete(replica);
  }

  close(): void {
    for (const [replica, watch] of this.#watches) this.#unwatch(replica, watch);
  }
}
