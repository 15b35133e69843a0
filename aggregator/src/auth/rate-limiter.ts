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

  constructor(
    /** Read on every request, so a reloaded config applies at once. */
    readonly requestsPerMinute: () => number,
    readonly now: () => number = Date.now,
  ) {}

  /** Takes one request from `caller`'s allowance: 0 when it may go ahead, else the seconds to wait. */
  take(caller: string): number {
    const now = this.now();
    const allowance = this.requestsPerMinute();
    const perMs = allowance / 60_000;
    const bucket = this.#buckets.get(caller) ?? { tokens: allowance, refilledAt: now };
    bucket.tokens = Math.min(allowance, bucket.tokens + (now - bucket.refilledAt) * perMs);
    bucket.refilledAt = now;
    this.#buckets.set(caller, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
  }
}
