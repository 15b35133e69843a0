import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { StateUnavailableError } from '../state/state-unavailable.js';
import { type Authenticator, AuthRefusal, tooManyRequests } from './authenticator.js';
import type { RedisRateLimiter } from './redis-rate-limiter.js';

function refuse(res: Response, refusal: AuthRefusal): void {
  res.status(refusal.status).set(refusal.headers);
  res.json({ jsonrpc: '2.0', error: { code: -32000, message: refusal.message }, id: null });
}

/**
 * The fleet's rate limit, taken before the front authenticates: one token bucket per token in
 * Redis, so replicas together accept no more than `auth.requestsPerMinute`. A request whose
 * token is not valid goes on, for the front's own authentication to refuse with 401.
 */
export function sharedRateLimit(authenticator: Authenticator, limiter: RedisRateLimiter): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    let key: string;
    let identity: string;
    // After a stall of this process the token copy may have aged past trust though Redis answers:
    // it is read again first, rather than the request refused for it.
    await authenticator.store.freshen?.();
    try {
      ({ key, identity } = authenticator.judge(req));
    } catch {
      return next();
    }
    try {
      const waitSeconds = await limiter.take(key);
      if (waitSeconds > 0)
        return refuse(res, tooManyRequests(identity, limiter.requestsPerMinute(), waitSeconds));
    } catch (error) {
      if (!(error instanceof StateUnavailableError)) return next(error);
      return refuse(res, new AuthRefusal(503, error.message, { 'Retry-After': '1' }));
    }
    next();
  };
}
