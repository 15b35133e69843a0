import { randomUUID } from 'node:crypto';
import type { ParkedCall } from './parked-call.js';

/** How many 2026-07-28 calls may wait for their clients' answers at once in one process. */
export const MAX_PARKED_CALLS = 256;

interface Held {
  call: ParkedCall;
  expiresAt: number;
  timer: NodeJS.Timeout;
}

export type Taken = { call: ParkedCall } | { problem: 'absent' | 'stale' };

/**
 * The calls this process holds while their clients answer what their servers asked: at most
 * `max`, each for at most `waitMs()` per round. One the client does not come back for in time
 * is handed to `expired` (which cancels it). Ids are random, so no caller can guess another's.
 */
export class ParkedCalls {
  /** This process, as request states name the holder of a parked call; in a fleet, its replica id. */
  replica: string;
  readonly #held = new Map<string, Held>();

  constructor(
    private readonly options: {
      waitMs: () => number;
      max?: number;
      replica?: string;
      now?: () => number;
    },
  ) {
    this.replica = options.replica ?? randomUUID();
  }

  get size(): number {
    return this.#held.size;
  }

  /**
   * Holds `call` for its next round, until the returned expiry; undefined when this process
   * holds as many calls as it may. The round counts up, so a state of an earlier round is stale.
   */
  hold(call: ParkedCall, expired: (call: ParkedCall) => void): number | undefined {
    if (this.#held.size >= (this.options.max ?? MAX_PARKED_CALLS)) return undefined;
    const waitMs = this.options.waitMs();
    const expiresAt = (this.options.now ?? Date.now)() + waitMs;
    call.round += 1;
    const timer = setTimeout(() => {
      if (this.#held.get(call.id)?.call !== call) return;
      this.#held.delete(call.id);
      expired(call);
    }, waitMs);
    // A call waiting for a client does not keep the process alive on its own.
    timer.unref();
    this.#held.set(call.id, { call, expiresAt, timer });
    return expiresAt;
  }

  /**
   * Takes a held call back for the retry of `round`: each round's retry resumes it once. `stale`
   * when the call waits for a later round, `absent` when it is not held here (ended, or resumed).
   */
  take(id: string, round: number): Taken {
    const held = this.#held.get(id);
    if (!held) return { problem: 'absent' };
    if (held.call.round !== round) return { problem: 'stale' };
    clearTimeout(held.timer);
    this.#held.delete(id);
    return { call: held.call };
  }

  /** Lets go of every held call (the process is stopping), and returns them to be ended. */
  releaseAll(): ParkedCall[] {
    const calls = [...this.#held.values()].map(({ call, timer }) => {
      clearTimeout(timer);
      return call;
    });
    this.#held.clear();
    return calls;
  }
}
