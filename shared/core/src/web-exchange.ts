import { Readable } from 'node:stream';
import {
  classifyInboundRequest,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';

/** One header of an express request, as the Fetch API's `headers.get` reads it. */
function headerOf(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The first revision of the stateless era; revisions are dates, so later ones sort after it. */
const FIRST_MODERN_REVISION = '2026-07-28';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether a JSON-RPC request or notification claims the 2026-07-28 era: the reserved protocol
 * version key in its `_meta`, or a 2026 revision in its MCP-Protocol-Version header. Such a
 * message is never 2025 traffic to the SDK: it serves it, or refuses it with its own answer.
 */
function claimsModernEra(req: Request, body: Record<string, unknown>): boolean {
  const meta = isRecord(body.params) ? body.params._meta : undefined;
  if (isRecord(meta) && PROTOCOL_VERSION_META_KEY in meta) return true;
  const header = headerOf(req, 'mcp-protocol-version')?.trim();
  return header !== undefined && header >= FIRST_MODERN_REVISION;
}

/**
 * Whether a POST express already parsed is of the 2026-07-28 era, as the SDK's classification
 * says, which `createMcpHandler` makes again for the request it serves. A call that claims the
 * era (not `initialize`, not a response) is taken as such without it: the full classification
 * costs a failed schema check or two per call. Anything else is classified here in full.
 */
export function isModernRequest(req: Request): boolean {
  if (!isJsonContentType(req.headers['content-type'] ?? null) || req.body === undefined) return false;
  const body: unknown = req.body;
  const plainCall =
    isRecord(body) &&
    typeof body.method === 'string' &&
    body.method !== 'initialize' &&
    !('result' in body) &&
    !('error' in body);
  if (plainCall && claimsModernEra(req, body)) return true;
  const protocolVersionHeader = headerOf(req, 'mcp-protocol-version');
  const mcpMethodHeader = headerOf(req, 'mcp-method');
  const mcpNameHeader = headerOf(req, 'mcp-name');
  const outcome = classifyInboundRequest({
    httpMethod: req.method.toUpperCase(),
    ...(protocolVersionHeader !== undefined && { protocolVersionHeader }),
    ...(mcpMethodHeader !== undefined && { mcpMethodHeader }),
    ...(mcpNameHeader !== undefined && { mcpNameHeader }),
    body,
  });
  // A request the SDK rejects outright (a malformed claim) goes to it too, for its answer.
  return outcome.kind !== 'legacy';
}

/**
 * The Fetch-API face of an express request whose body express already read, as the SDK's
 * web-standard handler reads it: method, URL, headers, and a signal that fires when the client
 * goes away before its answer; no body (the handler takes the parsed one). It is not undici's
 * Request, whose construction costs more than a trivial call: only `clone()` makes one.
 */
class ParsedRequest {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly headers: Headers,
    readonly signal: AbortSignal,
  ) {}

  clone(): globalThis.Request {
    return new globalThis.Request(this.url, {
      method: this.method,
      headers: this.headers,
      signal: this.signal,
    });
  }
}

export function webRequestOf(req: Request, res: Response): globalThis.Request {
  const aborted = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) aborted.abort();
  });
  const url = `http://${req.headers.host ?? 'localhost'}${req.originalUrl}`;
  return new ParsedRequest(req.method, url, headersOf(req), aborted.signal) as unknown as globalThis.Request;
}

/** An express request's headers as Fetch-API headers. */
function headersOf(req: Request): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

/** A Fetch-API response's headers for Node's writeHead: each name once, repeated ones as a list. */
function nodeHeadersOf(answer: globalThis.Response): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  answer.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  return headers;
}

/**
 * Writes a Fetch-API response (a JSON body or an event stream) to the express response, its
 * headers exactly as the handler set them.
 */
export async function sendWebResponse(res: Response, answer: globalThis.Response): Promise<void> {
  const headers = nodeHeadersOf(answer);
  if (!answer.body) {
    res.writeHead(answer.status, headers).end();
    return;
  }
  // One JSON answer is sent whole, read as text: piping it, or reading it as bytes, costs more
  // than the call itself.
  if (!answer.headers.get('content-type')?.startsWith('text/event-stream')) {
    const text = await answer.text();
    headers['content-length'] = String(Buffer.byteLength(text));
    res.writeHead(answer.status, headers).end(text);
    return;
  }
  res.writeHead(answer.status, headers);
  res.flushHeaders();
  const body = Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream);
  res.once('close', () => body.destroy());
  body.on('error', () => res.destroy());
  body.pipe(res);
}
