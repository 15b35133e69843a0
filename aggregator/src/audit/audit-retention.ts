import type { Logger } from '@toolmesh/core';
import type { AggregatorState } from '../state/state.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

export interface AuditRetentionOptions {
  state: AggregatorState;
  log: Logger;
  /** Read at each pruning, so a reloaded config applies at the next one. */
  retentionDays: () => number;
  everyMs?: number;
  now?: () => number;
}

/**
 * Deletes audit records older than the retention, once at start and then periodically. The
 * timer is unref'd: pruning never keeps a process alive. A failure is logged and retried at the
 * next round; deleting frees space, so it cannot make a full disk worse.
 */
export class AuditRetention {
  readonly #options: Required<AuditRetentionOptions>;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: AuditRetentionOptions) {
    this.#options = { everyMs: HOUR_MS, now: Date.now, ...options };
  }

  /** Prunes now; resolves to the number of records deleted (0 when pruning failed). */
  async prune(): Promise<number> {
    const { state, log, retentionDays, now } = this.#options;
    const before = now() - retentionDays() * DAY_MS;
    try {
      const deleted = await state.pruneAudit(before);
      if (deleted > 0) log.info(`audit: deleted ${deleted} records older than ${retentionDays()} days`);
      return deleted;
    } catch (error) {
      log.error(`audit: could not delete old records in ${state.location}: ${(error as Error).message}`);
      return 0;
    }
  }

  start(): void {
    this.stop();
    void this.prune();
    this.#timer = setInterval(() => void this.prune(), this.#options.everyMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
