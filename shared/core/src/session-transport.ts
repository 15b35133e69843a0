import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  StreamableHTTPServerTransport,
  type StreamableHTTPServerTransportOptions,
} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { isPlainToolCall } from './plain-tool-call.js';

/** As the SDK's transport keeps a call's event stream open while it runs (its DEFAULT_SSE_KEEP_ALIVE_MS). */
const KEEP_ALIVE_MS = 15_000;
const PARSE_ERROR = -32700;

/** The headers the SDK answers a request of a session with, as its Node adapter writes them. */
function eventStreamHeaders(sessionId: string): Record<string, string> {
  return {
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'content-type': 'text/event-stream',
    'mcp-session-id': sessionId,
    'x-accel-buffering': 'no',
  };
}

/**
 * The event stream of one call answered on its own response: `open` while the client reads it,
 * `gone` once it went away, `closed` once the session closed it.
 */
interface CallStream {
  res: ServerResponse;
  headers: Record<string, string>;
  state: 'open' | 'gone' | 'closed';
  keepAlive: NodeJS.Timeout;
}

function write(call: CallStream, text: string): void {
  if (!call.res.headersSent) call.res.writeHead(200, call.headers);
  call.res.write(text);
}

interface SdkState {
  _closed?: boolean;
}

/**
 * The SDK's Streamable HTTP transport of a 2025 session, with a lane of its own for the request
 * every client sends most: a POST of one plain tools/call (see isPlainToolCall) that passes the
 * SDK's checks (Accept, Content-Type, session, protocol version). Such a call's event stream is
 * written here straight to the Node response, as the SDK writes it, without its Node adapter
 * (a Fetch request and response per call, a web stream piped to the socket) and its schema pass
 * over the message; whatever the session's server sends related to the call (its notifications,
 * its requests to the client, its answer) reaches that stream through `send`, as in the SDK.
 * Anything else (another method, a batch, a header the SDK would refuse or read otherwise) is the
 * SDK's to serve or refuse in its own words.
 */
export class SessionTransport extends StreamableHTTPServerTransport {
  private readonly calls = new Map<string | number, CallStream>();
  /**
   * The lane writes events as the SDK does with none of these: no event ids, no JSON answers, no
   * Host and Origin checks of the transport's own, keep-alives at the SDK's default pace.
   */
  private readonly laneOpen: boolean;

  constructor(options: StreamableHTTPServerTransportOptions = {}) {
    super(options);
    this.laneOpen =
      options.eventStore === undefined &&
      options.enableJsonResponse !== true &&
      options.enableDnsRebindingProtection !== true &&
      options.keepAliveMs === undefined;
  }

  override async handleRequest(
    req: IncomingMessage & { auth?: unknown },
    res: ServerResponse,
    parsedBody?: unknown,
  ): Promise<void> {
    // A response closed while the body was read or the session found is the SDK's to end.
    if (res.destroyed || !this.ownLane(req, parsedBody))
      return super.handleRequest(req as never, res, parsedBody);
    const message = parsedBody;
    // The headers go out once the server took the message, as the SDK's response does.
    const call: CallStream = {
      res,
      headers: eventStreamHeaders(this.sessionId as string),
      state: 'open',
      keepAlive: setInterval(() => write(call, ': keepalive\n\n'), KEEP_ALIVE_MS),
    };
    const { keepAlive } = call;
    keepAlive.unref();
    this.calls.set(message.id, call);
    res.once('close', () => {
      clearInterval(keepAlive);
      if (call.state === 'open') call.state = 'gone';
    });
    try {
      this.onmessage?.(message, { authInfo: req.auth as never, requestInfo: requestInfoOf(req) });
    } catch (error) {
      // As the SDK answers a message its server could not take.
      this.calls.delete(message.id);
      clearInterval(keepAlive);
      this.onerror?.(error as Error);
      const text = JSON.stringify({
        jsonrpc: '2.0',
        error: { code: PARSE_ERROR, message: 'Parse error', data: String(error) },
        id: null,
      });
      res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    if (!res.headersSent) {
      res.writeHead(200, call.headers);
      res.flushHeaders();
    }
  }

  /** Whether the request is one plain tools/call the SDK would serve on a stream of its own. */
  private ownLane(req: IncomingMessage, body: unknown): body is JSONRPCMessage & { id: string | number } {
    const { headers } = req;
    const accept = headers.accept;
    const version = headers['mcp-protocol-version'];
    return (
      this.laneOpen &&
      req.method === 'POST' &&
      isPlainToolCall(body) &&
      !this.calls.has(body.id) &&
      headers['content-type'] === 'application/json' &&
      sentOnce(req, 'content-type') &&
      typeof accept === 'string' &&
      accept.includes('application/json') &&
      accept.includes('text/event-stream') &&
      this.sessionId !== undefined &&
      headers['mcp-session-id'] === this.sessionId &&
      (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version as string)) &&
      (this as unknown as { _webStandardTransport?: SdkState })._webStandardTransport?._closed === false
    );
  }

  /**
   * Routes a message related to a call of the own lane to its stream, as the SDK routes one to
   * the stream of the request it relates to: written while the client reads it, the stream ended
   * with the answer; an answer whose client went away fails as the SDK's does.
   */
  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const answer = 'result' in message || 'error' in message;
    const requestId = answer ? (message as { id: string | number }).id : options?.relatedRequestId;
    const call = requestId === undefined ? undefined : this.calls.get(requestId);
    if (!call) return super.send(message, options);
    if (answer) this.calls.delete(requestId as string | number);
    if (call.state === 'open') {
      write(call, `event: message\ndata: ${JSON.stringify(message)}\n\n`);
      if (answer) {
        clearInterval(call.keepAlive);
        call.res.end();
      }
      return;
    }
    if (answer && call.state === 'gone')
      throw new Error(`No connection established for request ID: ${String(requestId)}`);
  }

  /**
   * The SDK's close (by the session's owner, or by a DELETE of its client) ends the streams of
   * the own lane's calls too, as it ends its own streams, before it says the session closed.
   */
  override set onclose(handler: (() => void) | undefined) {
    super.onclose = () => {
      for (const call of this.calls.values()) {
        if (call.state !== 'open') continue;
        call.state = 'closed';
        clearInterval(call.keepAlive);
        call.res.end();
      }
      handler?.();
    };
  }

  override get onclose(): (() => void) | undefined {
    return super.onclose;
  }
}

/**
 * What the SDK hands a request's handler as `requestInfo` (its headers as the Fetch API reads
 * them, its URL), made only when a handler reads it: a plain call answered past the SDK never does.
 */
function requestInfoOf(req: IncomingMessage) {
  let headers: Record<string, string> | undefined;
  let url: URL | undefined;
  return {
    get headers() {
      headers ??= Object.fromEntries(fetchHeadersOf(req).entries());
      return headers;
    },
    get url() {
      url ??= new URL(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`);
      return url;
    },
  };
}

/**
 * Whether the request carries header `name` (lower case) once: Node keeps only the first of some
 * repeated headers, where the Fetch API that the SDK reads joins them all.
 */
function sentOnce(req: IncomingMessage, name: string): boolean {
  const raw = req.rawHeaders;
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const header = raw[i] as string;
    if (header.length === name.length && header.toLowerCase() === name) seen++;
  }
  return seen === 1;
}

function fetchHeadersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return headers;
}
