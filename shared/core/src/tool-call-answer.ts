import {
  type CallToolResult,
  type JSONRPCMessage,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SERVER_INFO_META_KEY,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { MODERN_REVISION, type ModernToolCall, type PlainToolCall } from './plain-tool-call.js';

/** What answers a tools/call: a server's own handler, also run past the SDK for plain calls. */
export type ToolCallHandler = (request: PlainToolCall, context: ServerContext) => Promise<CallToolResult>;

/** How a tools/call handler ended: with its result, or with what it threw. */
export type ToolCallOutcome = { result: CallToolResult } | { error: unknown };

/** Runs `handle`, catching what it throws. */
export async function settledToolCall(
  handle: ToolCallHandler,
  request: PlainToolCall,
  context: ServerContext,
): Promise<ToolCallOutcome> {
  try {
    return { result: await handle(request, context) };
  } catch (error) {
    return { error };
  }
}

const REQUEST_CONTROLLER = Symbol('toolmesh.requestController');

/**
 * The controller of the signal a call answered past the SDK was given (see modernCallContext),
 * or undefined for a request the SDK served. Nothing else aborts it once the request has its
 * answer, so work that outlives the request (a 2026-07-28 call parked for its client's answer)
 * can take the signal as its own and abort it itself, instead of linking a signal of its own to
 * this one: in Node 20 each AbortSignal made and each listener added costs more than the rest
 * of a plain call's own handling.
 */
export function requestController(request: ServerContext['mcpReq']): AbortController | undefined {
  return (request as { [REQUEST_CONTROLLER]?: AbortController })[REQUEST_CONTROLLER];
}

/**
 * The context the SDK gives the handler of a plain 2026-07-28 call: its envelope, no request
 * state, and no server-to-client requests (the revision has none: a handler returns
 * `input_required` instead), with `notify` sending what the call tells its client. Its signal
 * is `controller`'s, which requestController gives back.
 */
export function modernCallContext(
  { request, envelope }: ModernToolCall,
  controller: AbortController,
  notify: (notification: { method: string; params?: unknown }) => Promise<void>,
): ServerContext {
  const mcpReq = {
    id: request.id,
    method: request.method,
    _meta: request.params._meta,
    envelope,
    requestState: () => undefined,
    signal: controller.signal,
    [REQUEST_CONTROLLER]: controller,
    notify,
    send: () =>
      Promise.reject(
        new SdkError(
          SdkErrorCode.MethodNotSupportedByProtocolVersion,
          `Server-to-client requests are not available on protocol revision ${MODERN_REVISION}: return input_required instead.`,
        ),
      ),
  };
  return { mcpReq } as unknown as ServerContext;
}

/** The SDK answers a tool's protocol error with this code in place of -32002 on either wire. */
const RESOURCE_NOT_FOUND = -32002;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const PLAIN_RESULT_KEYS = new Set(['content', 'structuredContent', 'isError', '_meta']);

/** A result of text blocks only, with nothing else a result schema would look into. */
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

/** A result without content gets an empty one, as the SDK's tools/call wrapper gives it. */
function withContent(result: CallToolResult): CallToolResult {
  const raw = result as unknown as Record<string, unknown>;
  return isPlainObject(raw) && raw.content === undefined ? { ...result, content: [] } : result;
}

/** A thrown error as the SDK answers it: its code (an internal error without one), message and data. */
function errorAnswer(id: string | number, error: unknown): JSONRPCMessage {
  const { code, message, data } = error as { code?: unknown; message?: string; data?: unknown };
  const thrown = Number.isSafeInteger(code) ? (code as number) : ProtocolErrorCode.InternalError;
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: thrown === RESOURCE_NOT_FOUND ? ProtocolErrorCode.InvalidParams : thrown,
      message: message ?? 'Internal error',
      ...(data !== undefined && { data }),
    },
  };
}

/**
 * The answer to a 2025 session's tools/call as the SDK sends it, when the outcome is one whose
 * answer needs none of its checks: a plain result as it is, or a thrown error. Undefined for a
 * result the SDK holds to the result schema (other blocks, other keys), which the SDK must answer.
 */
export function legacyAnswer(id: string | number, outcome: ToolCallOutcome): JSONRPCMessage | undefined {
  if ('error' in outcome) return errorAnswer(id, outcome.error);
  const result = withContent(outcome.result);
  const raw = result as unknown as Record<string, unknown>;
  if (isPlainObject(raw) && isPlainResult(raw)) return { jsonrpc: '2.0', id, result };
  return undefined;
}

/**
 * Errors the SDK rewrites or answers with an HTTP status of their own on the 2026-07-28 wire:
 * a URL elicitation signalled by throwing (-32042), a client capability missing (-32021).
 */
const SDK_TREATED_ERRORS = new Set<unknown>([-32042, ProtocolErrorCode.MissingRequiredClientCapability]);

/**
 * The answer to a 2026-07-28 tools/call as the SDK sends it, when the outcome is one whose
 * answer needs none of its checks: a plain result (stamped `complete` and with the server's
 * identity, as the revision asks) or a thrown error. Undefined for anything else (an
 * `input_required` round, other blocks, a result naming a server itself, an error the SDK
 * rewrites), which the SDK must answer.
 */
export function modernAnswer(
  id: string | number,
  outcome: ToolCallOutcome,
  serverInfo: Record<string, unknown>,
): JSONRPCMessage | undefined {
  if ('error' in outcome) {
    const { error } = outcome;
    if (!(error instanceof Error) || SDK_TREATED_ERRORS.has((error as { code?: unknown }).code))
      return undefined;
    return errorAnswer(id, error);
  }
  const result = withContent(outcome.result) as unknown as Record<string, unknown>;
  if (!isPlainObject(result) || !isPlainResult(result)) return undefined;
  const meta = result._meta as Record<string, unknown> | undefined;
  if (meta !== undefined && SERVER_INFO_META_KEY in meta) return undefined;
  return {
    result: { ...result, resultType: 'complete', _meta: { ...meta, [SERVER_INFO_META_KEY]: serverInfo } },
    jsonrpc: '2.0',
    id,
  } as unknown as JSONRPCMessage;
}
