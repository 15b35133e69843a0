import type { IncomingMessage, ServerResponse } from 'node:http';
import { readWholeBody, type ToTheApp } from '@toolmesh/core/http';
import { type RateLimitCheck, refuse } from '../auth/shared-rate-limit.js';
import type { Fleet } from './fleet.js';
import { FORWARDED_BY } from './forward-hops.js';
import { rawBody } from './forward-request.js';
import { headWithFirstWrite } from './head-with-first-write.js';

/** Whether `url` is one of the front's Streamable HTTP endpoints (`/mcp`, `/mcp/all`, `/mcp/:mode/…`), its query aside. */
function isSessionEndpoint(url: string): boolean {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  return path === '/mcp' || path.startsWith('/mcp/');
}

/**
 * Whether the request is one the endpoints serve (POST, GET, DELETE) and its body, if any, can be
 * read whole within the front's limit before it is passed on: a GET or DELETE has none.
 */
function bodyFits(req: IncomingMessage, maxBodyBytes: number): boolean {
  const declared = req.headers['content-length'];
  if (req.method === 'GET' || req.method === 'DELETE')
    return req.headers['transfer-encoding'] === undefined && (declared === undefined || declared === '0');
  if (req.method !== 'POST') return false;
  const length = Number(declared);
  return declared !== undefined && Number.isInteger(length) && length > 0 && length <= maxBodyBytes;
}

export interface EarlyForwardOptions {
  maxBodyBytes: number;
  /** The fleet's shared rate limit, when authentication is on. */
  rateLimit?: RateLimitCheck;
  /**
   * Whether the request carries a token this fleet accepts, when authentication is on. One that
   * does not is left to the front, which refuses it before reading a byte of its body: a session
   * id alone must not buy a stranger a body read into this replica's memory.
   */
  authenticated?: (req: IncomingMessage) => boolean;
}

/**
 * Passes a request of a 2025 session another replica owns straight on to that owner, as the HTTP
 * server hands it over, before express routes it or parses its body: the owner does that, and
 * judges the token again (here it is only checked to be valid, so that a stranger's body is never
 * read), taking nothing from the rate limit, which the fleet's shared limit took here. What a
 * forward costs this replica is then little more than a bare proxy's hop (test/bench/hop-proxy.mjs). The body goes byte for byte; the answer
 * streams back. A request whose owner is not known to live elsewhere, one another replica passed
 * on (its directory is read afresh there), a body of unknown length, or an owner that no longer
 * listens: the front serves it as it serves any request, which forwards it or takes the session
 * over; the answer to a POST another replica passed on keeps its head for its first write
 * (head-with-first-write.ts). Every request is counted here, forwarded or not, so a drain waits for it.
 */
export function earlyForward(fleet: Fleet, { maxBodyBytes, rateLimit, authenticated }: EarlyForwardOptions) {
  const passOn = async (sessionId: string, req: IncomingMessage, res: ServerResponse, next: ToTheApp) => {
    const target = await fleet.ownerElsewhere(sessionId).catch(() => undefined);
    if (!target) return next();
    if (rateLimit) {
      const refusal = await rateLimit(req).catch(() => 'failed' as const);
      // The front runs the limit too, and answers its failure as it answers any.
      if (refusal === 'failed') return next();
      if (refusal) return refuse(res, refusal);
    }
    if (authenticated && !authenticated(req)) return next();
    let bytes: Buffer | undefined;
    if (req.method === 'POST') {
      bytes = await readWholeBody(req);
      // The client went away while it sent the body: nobody waits for an answer.
      if (!bytes) return;
    }
    const outcome = await fleet.passOn(sessionId, req, res, target, bytes && rawBody(bytes));
    if (outcome === 'refused') next(bytes);
  };
  return (req: IncomingMessage, res: ServerResponse, next: ToTheApp): void => {
    fleet.countRequest(req, res);
    // Passed on by another replica: the front serves it, and reads the directory afresh if it must.
    if (req.headers[FORWARDED_BY] !== undefined) {
      if (req.method === 'POST') headWithFirstWrite(res);
      next();
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId !== 'string' || !isSessionEndpoint(req.url ?? '') || !bodyFits(req, maxBodyBytes)) {
      next();
      return;
    }
    void passOn(sessionId, req, res, next);
  };
}
