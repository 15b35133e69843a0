interface Bucket {
  tokens: number;
  refilledAt: number;
}

/**
 * Requests per minute per caller, as a token bucket: a caller may burst up to the whole
 * minute's allowance, then gets one request per 1/rate of a minute.
 */
export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #perMs: number;

  constructor(
    readonly requestsPerMinute: number,
    readonly now: () => number = Date.now,
  ) {
    this.#perMs = requestsPerMinute / 60_000;
  }

  /** Takes one request from `caller`'s allowance: 0 when it may go ahead, else the seconds to wait. */
  take(caller: string): number {
    const now = this.now();
    const bucket = this.#buckets.get(caller) ?? { tokens: this.requestsPerMinute, refilledAt: now };
    bucket.tokens = Math.min(this.requestsPerMinute, bucket.tokens + (now - bucket.refilledAt) * this.#perMs);
    bucket.refilledAt = now;
    this.#buckets.set(caller, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.#perMs / 1000));
  }
}
