import type { Logger } from '@toolmesh/core';
import type { Redis } from 'ioredis';
import type { InFlightCall, InFlightCalls } from '../audit/audited-call.js';

// Takes (reads and deletes) a replica's marks, but only while it has no heartbeat: a live
// replica's calls are its own to record. Returns false when it lives, else field, value, ….
const TAKE_IF_DEAD = `
if redis.call('EXISTS', KEYS[2]) == 1 then return false end
local marks = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1])
return marks`;

/**
 * The calls each replica runs now, one Redis hash per replica, so that when one dies another
 * can record what it left unfinished. Marking is not awaited: it must not slow a call down, and
 * one connection keeps a call's mark and unmark in order. A mark that Redis missed (it was away)
 * only means a call cut off meanwhile goes unrecorded as such.
 */
export class InFlightMarks implements InFlightCalls {
  readonly #own: string;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    replica: string,
    private readonly log: Logger,
  ) {
    this.#own = this.#key(replica);
  }

  #key(replica: string): string {
    return `${this.prefix}inflight:${replica}`;
  }

  mark(id: string, call: InFlightCall): void {
    this.redis.hset(this.#own, id, JSON.stringify(call)).catch(this.#missed);
  }

  unmark(id: string): void {
    this.redis.hdel(this.#own, id).catch(this.#missed);
  }

  readonly #missed = (error: Error) =>
    this.log.debug(`fleet: in-flight mark not kept in Redis: ${error.message}`);

  /** The replicas that have calls marked now, this one included. */
  async markedReplicas(): Promise<string[]> {
    const found: string[] = [];
    const pattern = `${this.#key('')}*`;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 200);
      cursor = next;
      found.push(...keys.map((key) => key.slice(pattern.length - 1)));
    } while (cursor !== '0');
    return found;
  }

  /** The calls `replica` left marked, taken once by whoever asks first; none while its heartbeat (`heartbeatKey`) lives. */
  async takeFromDead(replica: string, heartbeatKey: string): Promise<InFlightCall[]> {
    const taken = (await this.redis.eval(TAKE_IF_DEAD, 2, this.#key(replica), heartbeatKey)) as
      | string[]
      | null;
    if (!taken) return [];
    const calls: InFlightCall[] = [];
    for (let index = 1; index < taken.length; index += 2) calls.push(JSON.parse(taken[index] as string));
    return calls;
  }
}
