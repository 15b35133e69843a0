import type { JSONRPCMessage, Server, ServerContext, Transport } from '@modelcontextprotocol/server';
import { isPlainToolCall, type PlainToolCall, plainModernCallOf } from './plain-tool-call.js';
import { type LineShortcut, lineTransportOf, type StdioLineTransport } from './stdio-line-transport.js';
import {
  legacyAnswer,
  modernAnswer,
  modernCallContext,
  settledToolCall,
  type ToolCallHandler,
  type ToolCallOutcome,
} from './tool-call-answer.js';

type Running = Map<string | number, AbortController>;

/** Cancellations acted on already, where they were read: the SDK's entry hands them on later. */
const cancelled = new WeakSet<object>();

/**
 * Answers the plain tools/call requests that reach `server` on a connection it holds (stdio, a
 * 2025 session over HTTP) with `handle`, straight from the transport, the way the SDK's server
 * would, without its passes over the message: the type guards that each run the JSON-RPC
 * schemas, the request schema run twice and the result schema on a result of text blocks. Two
 * kinds of call are taken: a 2025 session's plain call (see isPlainToolCall) once
 * `sessionOpen()`, answered as legacyAnswer gives it; and a plain 2026-07-28 call (see
 * plainModernCallOf) on a connection the SDK pinned to that revision (over stdio, its opening
 * message came classified as modern), answered as modernAnswer gives it or, when the answer
 * needs the SDK's checks, handed to the SDK with its outcome (`replay`), so the call never runs
 * twice. Everything else goes through the SDK as before, as does every message the SDK itself
 * classified (the opening one, an HTTP exchange's). A notifications/cancelled of such a call
 * aborts it. Over a StdioLineTransport, once the SDK's stdio entry has pinned the connection's
 * era (it then hands messages on unclassified and unchanged), plain calls are taken off the line
 * before the entry reads them and answered on it (see LineShortcut): the entry's own passes (its
 * type guards on every message in and out) are most of what is left of the SDK on such a call.
 */
export function answerOnConnection(
  server: Server,
  handle: ToolCallHandler,
  serverInfo: Record<string, unknown>,
  sessionOpen: () => boolean,
  replay: (id: string | number, outcome: ToolCallOutcome) => void,
): void {
  const connect = server.connect.bind(server);
  server.connect = async (transport: Transport) => {
    await connect(transport);
    const viaSdk = transport.onmessage;
    const running: Running = new Map();
    let modern = false;
    let line: StdioLineTransport | undefined;
    let shortcut: LineShortcut | undefined;
    // As the SDK aborts the handlers it runs when the connection closes.
    const closed = transport.onclose;
    transport.onclose = () => {
      if (line && line.shortcut === shortcut) line.shortcut = undefined;
      for (const controller of running.values()) controller.abort(new Error('Connection closed'));
      closed?.();
    };
    /** How a message is run and answered past the SDK; undefined when the SDK is to serve it. */
    const pastTheSdk = (message: JSONRPCMessage): PastTheSdk | undefined => {
      if (isPlainToolCall(message)) {
        if (!sessionOpen()) return undefined;
        const { id } = message;
        return {
          request: message,
          context: legacyCallContext(server, transport, message),
          answerOf: (outcome) => legacyAnswer(id, outcome),
        };
      }
      const call = modern ? plainModernCallOf(message) : undefined;
      if (!call) return undefined;
      const { id } = call.request;
      return {
        request: call.request,
        context: (controller) =>
          modernCallContext(call, controller, (notification) =>
            server.notification(notification as never, { relatedRequestId: id }),
          ),
        answerOf: (outcome) => modernAnswer(id, outcome, serverInfo),
      };
    };
    /**
     * Runs `message` past the SDK when it is a call to take, answered with `send` (or by the SDK,
     * handed the message with `extra`); whether it took it.
     */
    const take = (
      message: JSONRPCMessage,
      extra: unknown,
      send: (answer: JSONRPCMessage) => Promise<void>,
    ): boolean => {
      const past = pastTheSdk(message);
      if (!past || running.has(past.request.id)) return false;
      // What the SDK answers, it answers with the outcome known: the call does not run again.
      void answer(server, send, handle, running, past, (outcome) => {
        replay(past.request.id, outcome);
        viaSdk?.(message, extra as never);
      });
      return true;
    };
    /** Aborts the call a notifications/cancelled names, once: true when the message is one. */
    const cancels = (message: JSONRPCMessage): boolean => {
      if (!('method' in message) || message.method !== 'notifications/cancelled') return false;
      if (cancelled.has(message)) return true;
      cancelled.add(message);
      const params = message.params as { requestId?: string | number; reason?: unknown } | undefined;
      if (params?.requestId !== undefined) running.get(params.requestId)?.abort(params.reason);
      return true;
    };
    transport.onmessage = (message: JSONRPCMessage, extra?: { classification?: { era?: unknown } }) => {
      if (extra?.classification !== undefined) modern = extra.classification.era === 'modern';
      else if (!line) {
        line = lineTransportOf(message);
        const onLine = line;
        if (onLine) {
          // A cancellation is seen where it is read, before the entry's queue hands it on: a call
          // taken off a later line must not be taken for the one it named (ids may be used again).
          shortcut = (taken) =>
            !cancels(taken) && take(taken, undefined, (answered) => onLine.send(answered));
          onLine.shortcut = shortcut;
        }
      }
      if (extra?.classification === undefined && take(message, extra, (answered) => transport.send(answered)))
        return;
      cancels(message);
      viaSdk?.(message, extra as never);
    };
  };
}

/** A call answered past the SDK: the request its handler gets, its context, and its answer. */
interface PastTheSdk {
  request: PlainToolCall;
  context: (controller: AbortController) => ServerContext;
  /** The answer as the SDK would send it; undefined when the SDK must give it. */
  answerOf: (outcome: ToolCallOutcome) => JSONRPCMessage | undefined;
}

/**
 * Runs a call past the SDK under a controller its cancellation aborts, and answers it with
 * `answerOf` its outcome, or through the SDK (`viaSdk`) when that gives none; a cancelled call
 * gets no answer, as in the SDK.
 */
async function answer(
  server: Server,
  send: (answer: JSONRPCMessage) => Promise<void>,
  handle: ToolCallHandler,
  running: Running,
  { request, context, answerOf }: PastTheSdk,
  viaSdk: (outcome: ToolCallOutcome) => void,
): Promise<void> {
  const controller = new AbortController();
  running.set(request.id, controller);
  const outcome = await settledToolCall(handle, request, context(controller));
  running.delete(request.id);
  if (controller.signal.aborted) return;
  const answered = answerOf(outcome);
  if (!answered) return viaSdk(outcome);
  await send(answered).catch((error: Error) => server.onerror?.(error));
}

/** The context the SDK gives a 2025 session's call: its session, and requests to the client. */
function legacyCallContext(server: Server, transport: Transport, request: PlainToolCall) {
  return ({ signal }: AbortController) => {
    const { id } = request;
    const mcpReq = {
      id,
      method: request.method,
      _meta: request.params._meta,
      signal,
      notify: (notification: never) => server.notification(notification, { relatedRequestId: id }),
      send: (r: never, schema: never, options?: Record<string, unknown>) =>
        server.request(r, schema, { ...options, relatedRequestId: id }),
    };
    return { sessionId: transport.sessionId, mcpReq } as unknown as ServerContext;
  };
}
