import { EventEmitter } from 'node:events';
import type { AggregatorState } from '../state/state.js';

/** How often the state is asked what waits: SQLite has no notifications, and a new request must show within a second. */
const POLL_MS = 250;

/**
 * Emits `changed` when the set of pending approvals changes (one opens, is decided, expires),
 * polling the state only while someone listens. It reads the shared state, so requests opened
 * by any toolmesh sharing it show up.
 */
export class PendingWatch extends EventEmitter {
  #timer: NodeJS.Timeout | undefined;
  #last = '';
  #polling = false;

  constructor(
    private readonly state: AggregatorState,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.setMaxListeners(0);
  }

  subscribe(listener: () => void): () => void {
    this.on('changed', listener);
    this.#timer ??= setInterval(() => void this.#poll(), POLL_MS);
    return () => {
      this.off('changed', listener);
      if (this.listenerCount('changed') === 0) this.stop();
    };
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      const pending = await this.state.pendingApprovals(this.now());
      const signature = pending.map((approval) => approval.id).join(',');
      if (signature !== this.#last) {
        this.#last = signature;
        this.emit('changed');
      }
    } catch {
      // The state is briefly unreadable (locked, replaced): the next poll tries again.
    } finally {
      this.#polling = false;
    }
  }
}
