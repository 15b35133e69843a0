import type { Logger } from '@toolmesh/core';
import type { Redis } from 'ioredis';
import type { InFlightCall, InFlightCalls } from '../audit/audited-call.js';
import type { ReplicaLease } from './replica-lease.js';

// Takes (reads and deletes) the marks of the replicas listed in KEYS[1] that have no heartbeat,
// and strikes them from the list: a live replica's calls are its own to record. ARGV[1]: the
// heartbeat prefix; ARGV[2]: the marks' prefix; ARGV[3]: the replica asking, never taken;
// ARGV[4]: the one replica to look at, or '' for every one listed. Returns {replica, {field,
// value, …}} for each replica taken.
const TAKE_FROM_DEAD = `
local taken = {}
local replicas = redis.call('SMEMBERS', KEYS[1])
if ARGV[4] ~= '' then replicas = {ARGV[4]} end
for _, replica in ipairs(replicas) do
  if replica ~= ARGV[3] and redis.call('EXISTS', ARGV[1] .. replica) == 0 then
    table.insert(taken, {replica, redis.call('HGETALL', ARGV[2] .. replica)})
    redis.call('DEL', ARGV[2] .. replica)
    redis.call('SREM', KEYS[1], replica)
  end
end
return taken`;

/**
 * The calls each replica runs now, one Redis hash per replica, so that when one dies another
 * can record what it left unfinished. Marking is not awaited: it must not slow a call down.
 * The marks of one event-loop turn go together, as one HSET and one HDEL on one pipelined write,
 * and a mark set and cleared within the turn never reaches Redis. One turn, not longer: a call's
 * mark is on its way before the call's own server can answer it or say it started, so a replica
 * killed once a call began still leaves the call marked. One connection keeps the batches in
 * order. A mark that Redis missed (it was away) only means a call cut off meanwhile goes
 * unrecorded as such.
 */
export class InFlightMarks implements InFlightCalls {
  readonly #own: string;
  /** What each call's mark becomes at the next flush: its record, or null to clear it. */
  readonly #pending = new Map<string, string | null>();
  /** Calls whose mark was sent to Redis and not cleared since. */
  readonly #sent = new Set<string>();
  #flush: NodeJS.Immediate | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly lease: Pick<ReplicaLease, 'id' | 'heartbeatPrefix' | 'listKey'>,
    private readonly log: Logger,
  ) {
    this.#own = this.#key(lease.id);
  }

  #key(replica: string): string {
    return `${this.prefix}inflight:${replica}`;
  }

  mark(id: string, call: InFlightCall): void {
    this.#pending.set(id, JSON.stringify(call));
    this.#flush ??= setImmediate(() => void this.#send());
  }

  unmark(id: string): void {
    if (this.#sent.has(id)) {
      this.#pending.set(id, null);
      this.#flush ??= setImmediate(() => void this.#send());
    } else this.#pending.delete(id);
  }

  /** Sends the marks waiting for the turn's end now, and waits for Redis: the replica is leaving. */
  async flush(): Promise<void> {
    clearImmediate(this.#flush);
    await this.#send();
  }

  readonly #send = async (): Promise<void> => {
    this.#flush = undefined;
    const marked: string[] = [];
    const cleared: string[] = [];
    for (const [id, call] of this.#pending) {
      if (call === null) {
        cleared.push(id);
        this.#sent.delete(id);
      } else {
        marked.push(id, call);
        this.#sent.add(id);
      }
    }
    this.#pending.clear();
    if (marked.length === 0 && cleared.length === 0) return;
    const batch = this.redis.pipeline();
    if (marked.length > 0) batch.hset(this.#own, ...marked);
    if (cleared.length > 0) batch.hdel(this.#own, ...cleared);
    try {
      const failed = (await batch.exec())?.find(([error]) => error)?.[0];
      if (failed) this.#missed(failed);
    } catch (error) {
      this.#missed(error as Error);
    }
  };

  readonly #missed = (error: Error) =>
    this.log.debug(`fleet: in-flight marks not kept in Redis: ${error.message}`);

  /**
   * The calls left marked by replicas of the fleet that have no heartbeat (only by `replica`
   * when named), by replica; taken once, by whoever asks first. Never this replica's own.
   */
  async takeFromDead(replica = ''): Promise<Map<string, InFlightCall[]>> {
    const taken = (await this.redis.eval(
      TAKE_FROM_DEAD,
      1,
      this.lease.listKey,
      this.lease.heartbeatPrefix,
      this.#key(''),
      this.lease.id,
      replica,
    )) as Array<[string, string[]]>;
    const calls = new Map<string, InFlightCall[]>();
    for (const [dead, marks] of taken) {
      const left: InFlightCall[] = [];
      for (let index = 1; index < marks.length; index += 2) left.push(JSON.parse(marks[index] as string));
      calls.set(dead, left);
    }
    return calls;
  }
}
