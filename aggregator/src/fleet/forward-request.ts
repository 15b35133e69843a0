import http from 'node:http';
import { answerJson, jsonRpcError } from './forward-hops.js';
import { writesByTurn } from './writes-by-turn.js';

/** Headers that describe one hop, not the request: never passed on. */
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'host',
  'upgrade',
  'proxy-connection',
]);

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** `headers` but for the hop's own (a loop over keys: no array per header, as Object.entries makes). */
function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const into: http.OutgoingHttpHeaders = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_HEADERS.has(name)) into[name] = value;
  }
  return into;
}

/**
 * A request's body as it is passed on: the bytes to send, and the JSON-RPC messages they hold
 * (read only to answer each request when the owner stops mid-answer).
 */
export interface ForwardedBody {
  bytes: Buffer;
  messages(): unknown;
}

/** The body the front parsed already, sent again as JSON. */
export function parsedBody(req: { method?: string | undefined; body?: unknown }): ForwardedBody | undefined {
  if (req.method !== 'POST' || req.body === undefined) return undefined;
  return { bytes: Buffer.from(JSON.stringify(req.body)), messages: () => req.body };
}

/** The body as the client sent it, passed on byte for byte; parsed only when needed. */
export function rawBody(bytes: Buffer): ForwardedBody {
  return {
    bytes,
    messages: () => {
      try {
        return JSON.parse(bytes.toString('utf8')) as unknown;
      } catch {
        return undefined;
      }
    },
  };
}

function requestIds(body: unknown): Array<string | number> {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message) =>
    typeof message === 'object' &&
    message !== null &&
    'method' in message &&
    'id' in message &&
    (typeof message.id === 'string' || typeof message.id === 'number')
      ? [message.id]
      : [],
  );
}

function errorsFor(ids: Array<string | number>, message: string) {
  return ids.map((id) => ({ jsonrpc: '2.0' as const, id, error: { code: -32603, message } }));
}

/**
 * The client's answer when the replica it was forwarded to stopped mid-request: each request in
 * the body fails at once with `message`, on the event stream if one was open, rather than the
 * client waiting for an answer that will never come.
 */
function cutOff(
  body: ForwardedBody | undefined,
  res: http.ServerResponse,
  message: string,
  eventStream = false,
): void {
  const messages = body?.messages();
  const errors = errorsFor(requestIds(messages), message);
  if (!res.headersSent) {
    if (errors.length === 0) {
      answerJson(res, 502, { jsonrpc: '2.0', id: null, error: { code: -32603, message } });
      return;
    }
    answerJson(res, 200, Array.isArray(messages) ? errors : errors[0]);
    return;
  }
  if (!res.writableEnded && eventStream) {
    for (const error of errors) res.write(`event: message\ndata: ${JSON.stringify(error)}\n\n`);
  }
  res.end();
}

/** How often a request is sent again on fresh connections the replica reset unread (see unreadByTarget). */
const MAX_FRESH_RESETS = 3;

/**
 * Whether the socket error says the other end discarded what was sent: a reset that came while
 * reading or writing (a kernel answers so when a socket is closed with data unread), as opposed to
 * a hang-up, where the other end read the request and closed without answering.
 */
function unreadByTarget(error: NodeJS.ErrnoException): boolean {
  return (
    (error.code === 'ECONNRESET' || error.code === 'EPIPE') &&
    (error.syscall === 'read' || error.syscall === 'write')
  );
}

export type ForwardOutcome = 'answered' | 'refused';

/** Why a forward gave up on a replica that accepted it but does not answer: told to the client. */
export class TargetStalled extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/**
 * Passes one request to another replica and streams its answer back as it comes: JSON, or an
 * event stream (a call's progress and server-to-client requests, the GET stream). 'refused'
 * when nothing listens at `target` (before anything was sent, so the caller may serve it
 * otherwise); a replica that fails mid-answer gets the client a JSON-RPC error that says to retry.
 * `watch` is told how to give up (and returns what ends the watch): should the target be found
 * stalled, the forward answers a 503 that says why and when to retry, or, once the answer began,
 * the error that says to retry.
 */
export function forwardRequest(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  target: URL,
  headers: Record<string, string>,
  retryAdvice: string,
  watch: (giveUp: (why: TargetStalled) => void) => () => void,
  body: ForwardedBody | undefined,
): Promise<ForwardOutcome> {
  // The replica's own headers last: a client cannot send the hop marker or the secret through.
  const passed = Object.assign(endToEnd(req.headers), headers);
  passed.host = target.host;
  if (body) passed['content-length'] = body.bytes.length;
  let eventStream = false;
  let gaveUp: TargetStalled | undefined;
  let outgoing: http.ClientRequest;
  let freshResets = 0;
  let release: () => void = () => undefined;
  return new Promise<ForwardOutcome>((resolve) => {
    const send = () => {
      outgoing = http.request({
        agent,
        host: target.hostname,
        port: target.port,
        // Its whole URL: the front's routes are never mounted below a path, so express left it whole.
        path: req.url,
        method: req.method,
        headers: passed,
      });
      outgoing.on('response', (answer) => {
        eventStream = String(answer.headers['content-type']).startsWith('text/event-stream');
        res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
        // A GET stream may stay quiet for long: its client must learn at once that it opened. A
        // POST's answer goes with its first data, one write instead of two.
        if (req.method === 'GET') res.flushHeaders();
        // The owner's event and the answer's end, read together, reach the client as one write.
        writesByTurn(res);
        answer.on('data', (chunk: Buffer) => res.write(chunk));
        answer.on('error', () => undefined);
        answer.on('close', () => {
          if (answer.complete) res.end();
          else if (!res.writableEnded) cutOff(body, res, gaveUp?.message ?? retryAdvice, eventStream);
          resolve('answered');
        });
      });
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        if (res.headersSent) {
          if (!res.writableEnded) cutOff(body, res, gaveUp?.message ?? retryAdvice, eventStream);
          return resolve('answered');
        }
        if (gaveUp) {
          jsonRpcError(res, 503, gaveUp.message, { 'Retry-After': String(gaveUp.retryAfterSeconds) });
          return resolve('answered');
        }
        // The replica closed an idle kept-alive connection as this request took it: nothing
        // reached it, so it goes again. The next pooled connection may have been closed alike
        // (several idle out together), so it goes again until one is fresh: never reused twice.
        if (outgoing.reusedSocket && error.code === 'ECONNRESET') return send();
        // A reset on a fresh connection means the replica closed it with the request unread (it
        // stopped listening with the connection still queued in its kernel): nothing ran, so it
        // goes again, and finds the replica gone or serving. A replica that read the request and
        // then died closes without a reset, and that call is never sent twice.
        if (unreadByTarget(error) && freshResets++ < MAX_FRESH_RESETS) return send();
        if (error.code === 'ECONNREFUSED') return resolve('refused');
        cutOff(body, res, retryAdvice);
        resolve('answered');
      });
      outgoing.end(body?.bytes);
    };
    // The client went away (it closed its GET stream, or cancelled): so does the forward.
    res.once('close', () => {
      if (!res.writableFinished) outgoing.destroy();
    });
    send();
    release = watch((why) => {
      gaveUp = why;
      outgoing.destroy(why);
    });
  }).finally(() => release());
}
