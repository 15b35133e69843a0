import type { IncomingMessage, ServerResponse } from 'node:http';
import { StateUnavailableError } from '../state/state-unavailable.js';
import { type Authenticator, AuthRefusal, tooManyRequests } from './authenticator.js';
import type { RedisRateLimiter } from './redis-rate-limiter.js';

/** Answers a refusal as a JSON-RPC error, with node's own calls (whether express routed the request or not). */
export function refuse(res: ServerResponse, refusal: AuthRefusal): void {
  const text = JSON.stringify({
    jsonrpc: '2.0',
    error: { code: -32000, message: refusal.message },
    id: null,
  });
  res
    .writeHead(refusal.status, {
      ...refusal.headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    })
    .end(text);
}

/**
 * What the fleet's rate limit makes of a request: undefined when it goes on, else its refusal
 * (429, or 503 while Redis does not answer). Rejects when it failed otherwise.
 */
export type RateLimitCheck = (req: IncomingMessage) => Promise<AuthRefusal | undefined>;

/**
 * The fleet's rate limit, taken before the front authenticates: one token bucket per token in
 * Redis, so replicas together accept no more than `auth.requestsPerMinute`. A request whose
 * token is not valid goes on, for the front's own authentication to refuse with 401. A request is
 * taken from its budget once, whichever step asks first (a forward before express routes it, or
 * the front's own check after).
 */
export function sharedRateLimit(authenticator: Authenticator, limiter: RedisRateLimiter): RateLimitCheck {
  const taken = new WeakSet<IncomingMessage>();
  return async (req) => {
    if (taken.has(req)) return undefined;
    let key: string;
    let identity: string;
    // After a stall of this process the token copy may have aged past trust though Redis answers:
    // it is read again first, rather than the request refused for it.
    await authenticator.store.freshen?.();
    try {
      ({ key, identity } = authenticator.judge(req));
    } catch {
      return undefined;
    }
    let waitSeconds: number;
    try {
      waitSeconds = await limiter.take(key);
    } catch (error) {
      if (!(error instanceof StateUnavailableError)) throw error;
      return new AuthRefusal(503, error.message, { 'Retry-After': '1' });
    }
    if (waitSeconds > 0) return tooManyRequests(identity, limiter.requestsPerMinute(), waitSeconds);
    taken.add(req);
    return undefined;
  };
}
