import type { JSONRPCMessage, Server, ServerContext, Transport } from '@modelcontextprotocol/server';
import {
  isPlainToolCall,
  legacyAnswer,
  type PlainToolCall,
  settledToolCall,
  type ToolCallHandler,
} from '@toolmesh/core';

/**
 * Answers the plain tools/call requests of a 2025 session (see isPlainToolCall) with `handle`
 * straight from the transport, the way the SDK's server would, without its passes over the
 * message: the type guards that each run the JSON-RPC schemas, the request schema run twice and
 * the result schema on a result of text blocks (see legacyAnswer, shared with the 2026-07-28
 * calls the HTTP front answers past the SDK). Everything else, and every call of a 2026-07-28
 * request here, goes through the SDK as before. A notifications/cancelled of such a call aborts it.
 */
export function answerPlainToolCalls(
  server: Server,
  handle: ToolCallHandler,
  /** Whether the server serves a 2025 session whose handshake is done. */
  initialized: () => boolean,
): void {
  const connect = server.connect.bind(server);
  server.connect = async (transport: Transport) => {
    await connect(transport);
    const viaSdk = transport.onmessage;
    const running = new Map<string | number, AbortController>();
    // As the SDK aborts the handlers it runs when the connection closes.
    const closed = transport.onclose;
    transport.onclose = () => {
      for (const controller of running.values()) controller.abort(new Error('Connection closed'));
      closed?.();
    };
    transport.onmessage = (message: JSONRPCMessage, extra?: { classification?: unknown }) => {
      if (
        extra?.classification === undefined &&
        isPlainToolCall(message) &&
        !running.has(message.id) &&
        initialized()
      ) {
        void answer(server, transport, handle, message, running);
        return;
      }
      if ('method' in message && message.method === 'notifications/cancelled') {
        const params = message.params as { requestId?: string | number; reason?: unknown } | undefined;
        if (params?.requestId !== undefined) running.get(params.requestId)?.abort(params.reason);
      }
      viaSdk?.(message, extra as never);
    };
  };
}

async function answer(
  server: Server,
  transport: Transport,
  handle: ToolCallHandler,
  request: PlainToolCall,
  running: Map<string | number, AbortController>,
): Promise<void> {
  const { id } = request;
  const controller = new AbortController();
  running.set(id, controller);
  const mcpReq = {
    id,
    method: request.method,
    _meta: request.params._meta,
    signal: controller.signal,
    notify: (notification: never) => server.notification(notification, { relatedRequestId: id }),
    send: (r: never, schema: never, options?: Record<string, unknown>) =>
      server.request(r, schema, { ...options, relatedRequestId: id }),
  };
  const context = { sessionId: transport.sessionId, mcpReq } as unknown as ServerContext;
  const outcome = await settledToolCall(handle, request, context);
  running.delete(id);
  // A cancelled request gets no answer, as in the SDK.
  if (controller.signal.aborted) return;
  await transport.send(legacyAnswer(id, outcome)).catch((error: Error) => server.onerror?.(error));
}
