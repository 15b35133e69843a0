import { type JSONRPCMessage, SdkError, SdkErrorCode, type Server } from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';
import { answerOnConnection } from './connection-tool-calls.js';
import { exchangeEnded } from './idle-servers.js';
import {
  MODERN_REVISION,
  type ModernToolCall,
  type PlainToolCall,
  plainModernCallOf,
} from './plain-tool-call.js';
import {
  modernAnswer,
  modernCallContext,
  settledToolCall,
  type ToolCallHandler,
  type ToolCallOutcome,
} from './tool-call-answer.js';
import { sendWebResponse } from './web-exchange.js';

/** As the SDK's per-request transport keeps an event stream open while a call runs. */
const KEEP_ALIVE_MS = 15_000;

interface DirectCalls {
  handle: ToolCallHandler;
  serverInfo: Record<string, unknown>;
}

const directCalls = new WeakMap<Server, DirectCalls>();
/** Outcomes of calls answered past the SDK that the SDK is to answer (see answerModernToolCall). */
const replays = new WeakMap<object, ToolCallOutcome>();

/**
 * Serves `server`'s tools/call with `handle`: through the SDK, and past it for plain calls: a
 * 2026-07-28 one over HTTP (see answerModernToolCall), and on a connection the server holds (see
 * answerOnConnection) a 2025 session's once `sessionOpen()` and a 2026-07-28 one over stdio.
 * `serverInfo` is what the server was made with, which the revision stamps on each result.
 */
export function serveToolCalls(
  server: Server,
  handle: ToolCallHandler,
  serverInfo: Record<string, unknown>,
  { sessionOpen = () => false }: { sessionOpen?: () => boolean } = {},
): void {
  // A call answered past the SDK over a connection whose answer the SDK gives, by request id.
  const replayed = new Map<string | number, ToolCallOutcome>();
  server.setRequestHandler('tools/call', async (request, context) => {
    let replay = replays.get(context.http?.req as object);
    if (!replay && replayed.has(context.mcpReq.id)) {
      replay = replayed.get(context.mcpReq.id);
      replayed.delete(context.mcpReq.id);
    }
    if (!replay) return handle(request as PlainToolCall, context);
    if ('error' in replay) throw replay.error;
    return replay.result;
  });
  directCalls.set(server, { handle, serverInfo });
  answerOnConnection(server, handle, serverInfo, sessionOpen, (id, outcome) => replayed.set(id, outcome));
}

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The call a POST carries when it is a plain 2026-07-28 tools/call the SDK would serve as such:
 * a plain call (see isPlainToolCall) with the envelope of the served revision, an envelope the
 * SDK accepts, and the routing headers naming exactly the revision, method and tool the body
 * does. Anything else (a malformed or foreign envelope, headers that disagree, an encoded
 * `Mcp-Name`, a retry with answers) is undefined, for the SDK to serve or refuse in its words.
 */
export function plainModernToolCall(req: Request): ModernToolCall | undefined {
  const call = plainModernCallOf(req.body);
  if (!call) return undefined;
  const { name } = call.request.params;
  if (
    header(req, 'mcp-protocol-version') !== MODERN_REVISION ||
    header(req, 'mcp-method') !== 'tools/call' ||
    header(req, 'mcp-name') !== name ||
    name.startsWith('=?')
  )
    return undefined;
  return call;
}

/** Whether `server` answers plain 2026-07-28 tools/call requests past the SDK (see serveToolCalls). */
export function answersPastTheSdk(server: Server): boolean {
  return directCalls.has(server);
}

/**
 * The SDK's answer to the request, served as it serves any; `remember` is given the Fetch request
 * it serves before it does, so that the handler answers with the outcome already known.
 */
export type ViaSdk = (remember: (request: globalThis.Request) => void) => Promise<globalThis.Response>;

/** The event stream of an answer that sent notifications before its result, as the SDK writes it. */
function eventStream(res: Response) {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  const keepAlive = setInterval(() => res.write(': keepalive\n\n'), KEEP_ALIVE_MS);
  keepAlive.unref();
  const write = (message: unknown) => res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  return {
    write,
    /** The client went away: nothing more is written. */
    drop: () => clearInterval(keepAlive),
    end(message: unknown) {
      clearInterval(keepAlive);
      write(message);
      res.end();
    },
  };
}

/**
 * Answers a plain 2026-07-28 tools/call (see plainModernToolCall) with the handler of `server`
 * (see serveToolCalls) straight from the HTTP front, as the SDK's per-request exchange would,
 * without it: no server connected and closed, no Fetch request and response, no second
 * classification and schema passes. Notifications the call sends before its result turn the
 * answer into an event stream, as in the SDK. An outcome whose answer needs the SDK's checks
 * (an `input_required` round, a result of other blocks, see modernAnswer) is handed to the SDK
 * through `viaSdk`, and answered as it answers it. A call whose client went away gets no answer.
 */
export async function answerModernToolCall(
  res: Response,
  server: Server,
  call: ModernToolCall,
  viaSdk: ViaSdk,
): Promise<void> {
  const direct = directCalls.get(server);
  if (!direct) throw new Error('answerModernToolCall: the server does not serve its tool calls past the SDK');
  const { id } = call.request;
  const controller = new AbortController();
  // As the SDK ends the exchange, and so the call, when its client goes away.
  const gone = () => {
    if (!res.writableFinished)
      controller.abort(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'));
  };
  res.once('close', gone);
  let stream: ReturnType<typeof eventStream> | undefined;
  const context = modernCallContext(call, controller, async (notification) => {
    if (controller.signal.aborted || res.writableEnded) return;
    stream ??= eventStream(res);
    stream.write({ jsonrpc: '2.0', ...notification });
  });
  const outcome = await settledToolCall(direct.handle, call.request, context);
  res.off('close', gone);
  if (controller.signal.aborted) {
    stream?.drop();
    return exchangeEnded(server);
  }
  const answer = modernAnswer(id, outcome, direct.serverInfo);
  if (!answer) return replay(res, outcome, viaSdk, stream);
  exchangeEnded(server);
  if (stream) return stream.end(answer);
  const text = JSON.stringify(answer);
  res
    .writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) })
    .end(text);
}

/** The SDK answers `outcome`: as it sends it, or as the last message of the stream already open. */
async function replay(
  res: Response,
  outcome: ToolCallOutcome,
  viaSdk: ViaSdk,
  stream: ReturnType<typeof eventStream> | undefined,
): Promise<void> {
  const answer = await viaSdk((request) => replays.set(request, outcome));
  if (!stream) return sendWebResponse(res, answer);
  stream.end((await answer.json()) as JSONRPCMessage);
}
