import type { NextFunction, Request, Response } from 'express';
import type { Fleet } from './fleet.js';
import { FORWARDED_BY } from './forward-hops.js';
import { rawBody } from './forward-request.js';

/** The paths of the front's Streamable HTTP endpoints (`/mcp`, `/mcp/all`, `/mcp/:mode/…`). */
function isSessionEndpoint(path: string): boolean {
  return path === '/mcp' || path.startsWith('/mcp/');
}

/**
 * Whether the request is one the endpoints serve (POST, GET, DELETE) and its body, if any, can be
 * read whole within the front's limit before it is passed on: a GET or DELETE has none.
 */
function bodyFits(req: Request, maxBodyBytes: number): boolean {
  const declared = req.headers['content-length'];
  if (req.method === 'GET' || req.method === 'DELETE')
    return req.headers['transfer-encoding'] === undefined && (declared === undefined || declared === '0');
  if (req.method !== 'POST') return false;
  const length = Number(declared);
  return declared !== undefined && Number.isInteger(length) && length > 0 && length <= maxBodyBytes;
}

/** The body, once it all came; rejects when the client went away first (listeners: cheaper than an async iterator). */
function readWhole(req: Request): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(Buffer.concat(chunks)));
    // After 'end' this changes nothing; before it, the client is gone.
    req.once('close', () => reject(new Error('the client went away while it sent the body')));
  });
}

/** The body read for a forward that did not happen, as the front's JSON parser would have left it. */
function parsedForTheFront(req: Request, bytes: Buffer, next: NextFunction): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    // As body-parser reports it, so the front answers it as it answers any body that is not JSON.
    next(Object.assign(error as Error, { type: 'entity.parse.failed', status: 400 }));
    return;
  }
  req.body = parsed;
  next();
}

/**
 * Passes a request of a 2025 session another replica owns straight on to that owner, before
 * the front authenticates it, parses its body or routes it: the owner does all of that (it
 * judges the token again, and takes nothing from the rate limit, which the fleet's shared
 * limit took here, before this). The body goes byte for byte; the answer streams back. A request
 * whose owner is not known to live elsewhere, one another replica passed on (its directory is
 * read afresh there), a body of unknown length, or an owner that no longer listens: the front
 * serves it as it serves any request, which forwards it or takes the session over.
 */
export function earlyForward(fleet: Fleet, maxBodyBytes: number) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const sessionId = req.headers['mcp-session-id'];
    if (
      typeof sessionId !== 'string' ||
      req.headers[FORWARDED_BY] !== undefined ||
      !isSessionEndpoint(req.path) ||
      !bodyFits(req, maxBodyBytes)
    )
      return next();
    const target = await fleet.ownerElsewhere(sessionId).catch(() => undefined);
    if (!target) return next();
    let bytes: Buffer | undefined;
    if (req.method === 'POST') {
      try {
        bytes = await readWhole(req);
      } catch {
        // The client went away while it sent the body: nobody waits for an answer.
        return;
      }
    }
    const outcome = await fleet.passOn(sessionId, req, res, target, bytes && rawBody(bytes));
    if (outcome === 'answered') return;
    if (bytes) parsedForTheFront(req, bytes, next);
    else next();
  };
}
