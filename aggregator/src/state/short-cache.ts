import { performance } from 'node:perf_hooks';

/**
 * Values read from the shared state, trusted for `ttlMs` from when their read began: what many
 * requests need (a 2026-07-28 principal's bound mode, the replica that owns a 2025 session) costs
 * one round trip to Redis per `ttlMs` instead of one per request, and a change another process
 * made is seen here within `ttlMs`. The oldest entries go first beyond `maxEntries`.
 */
export class ShortCache<V> {
  readonly #entries = new Map<string, { value: V; readAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async get(key: string, read: () => Promise<V>): Promise<V> {
    const startedAt = this.now();
    const held = this.#entries.get(key);
    if (held && startedAt - held.readAt < this.ttlMs) return held.value;
    const value = await read();
    this.set(key, value, startedAt);
    return value;
  }

  /** Forgets what was read: the next get reads again. */
  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** What this process itself just wrote, or read: seen here at once. */
  set(key: string, value: V, readAt = this.now()): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, readAt });
  }
}
