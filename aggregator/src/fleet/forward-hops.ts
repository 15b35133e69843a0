import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

// How a request travels between the replicas of a fleet: marked with each replica it passed, and
// the fleet's secret, so only a replica may mark it and it never goes round in a circle.

/**
 * The replicas a request was forwarded by, in order. Once is the rule; more when the session
 * moved while the request travelled (a leaving replica gave it to an heir); never beyond MAX_HOPS.
 */
export const FORWARDED_BY = 'x-toolmesh-forwarded-by';
const MAX_HOPS = 3;

/** The fleet's shared secret: only a replica may send FORWARDED_BY. */
export const FLEET_SECRET = 'x-toolmesh-fleet-secret';

/** Answers `body` as JSON, with node's own calls: a request passed on before express saw it has no express response. */
export function answerJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res
    .writeHead(status, {
      ...headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    })
    .end(text);
}

export function jsonRpcError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) {
  answerJson(res, status, { jsonrpc: '2.0', error: { code: -32000, message }, id: null }, headers);
}

export function hopsOf(req: IncomingMessage): string[] {
  const header = req.headers[FORWARDED_BY];
  return typeof header === 'string' && header !== '' ? header.split(',') : [];
}

/** Whether this replica may pass the request on: bounded hops, so it never travels in a circle. */
export function mayForward(req: IncomingMessage): boolean {
  return hopsOf(req).length < MAX_HOPS;
}

export function movedWhileTravelling(
  sessionId: string,
  req: IncomingMessage,
  res: ServerResponse,
): 'answered' {
  jsonRpcError(
    res,
    503,
    `Session ${sessionId} moved between toolmesh replicas while this request travelled (through ${hopsOf(req).join(', ')}): retry it.`,
    { 'Retry-After': '1' },
  );
  return 'answered';
}

export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
