import {
  type CallToolResult,
  type JSONRPCMessage,
  type Server,
  type ServerContext,
  specTypeSchemas,
  type Transport,
} from '@modelcontextprotocol/server';
import { isPlainToolCall, type PlainToolCall } from '@toolmesh/core';

/** What answers a tools/call: the session server's own handler. */
export type ToolCallHandler = (request: PlainToolCall, context: ServerContext) => Promise<CallToolResult>;

const INTERNAL_ERROR = -32603;
/** The SDK answers a tool's protocol error with this code in place of -32002 on the 2025 wire. */
const RESOURCE_NOT_FOUND = -32002;
const INVALID_PARAMS = -32602;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const PLAIN_RESULT_KEYS = new Set(['content', 'structuredContent', 'isError', '_meta']);

/** A result of text blocks only, with nothing else the result schema would look into. */
function isPlainResult(result: Record<string, unknown>): boolean {
  for (const key in result) if (!PLAIN_RESULT_KEYS.has(key)) return false;
  const { content, structuredContent, isError, _meta } = result;
  if (!Array.isArray(content)) return false;
  for (const block of content) {
    if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string') return false;
    for (const key in block) if (key !== 'type' && key !== 'text') return false;
  }
  return (
    (structuredContent === undefined || isPlainObject(structuredContent)) &&
    (isError === undefined || typeof isError === 'boolean') &&
    (_meta === undefined || isPlainObject(_meta))
  );
}

/**
 * The result as the SDK's tools/call wrapper would send it: a result without content gets an
 * empty one, and anything but a plain one is held to the result schema.
 */
function checkedResult(result: CallToolResult): CallToolResult {
  const raw = result as unknown as Record<string, unknown>;
  if (isPlainObject(raw) && raw.content === undefined) return checkedResult({ ...result, content: [] });
  if (isPlainObject(raw) && isPlainResult(raw)) return result;
  const checked = specTypeSchemas.CallToolResult['~standard'].validate(result);
  if ('issues' in checked && checked.issues)
    throw Object.assign(
      new Error(`Invalid tools/call result: ${checked.issues.map((issue) => issue.message).join('; ')}`),
      { code: INVALID_PARAMS },
    );
  return checked.value as CallToolResult;
}

/**
 * Answers the plain tools/call requests of a 2025 session (see isPlainToolCall) with `handle`
 * straight from the transport, the way the SDK's server would, without its passes over the
 * message: the type guards that each run the JSON-RPC schemas, the request schema run twice and
 * the result schema on a result of text blocks. Everything else, and every call of a 2026-07-28
 * request, goes through the SDK as before. A notifications/cancelled of such a call aborts it.
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
  let response: JSONRPCMessage;
  try {
    const result = checkedResult(await handle(request, context));
    response = { jsonrpc: '2.0', id, result } as JSONRPCMessage;
  } catch (error) {
    const { code, message, data } = error as { code?: unknown; message?: string; data?: unknown };
    const thrown = Number.isSafeInteger(code) ? (code as number) : INTERNAL_ERROR;
    response = {
      jsonrpc: '2.0',
      id,
      error: {
        code: thrown === RESOURCE_NOT_FOUND ? INVALID_PARAMS : thrown,
        message: message ?? 'Internal error',
        ...(data !== undefined && { data }),
      },
    };
  } finally {
    running.delete(id);
  }
  // A cancelled request gets no answer, as in the SDK.
  if (controller.signal.aborted) return;
  await transport.send(response).catch((error: Error) => server.onerror?.(error));
}
