import {
  JSONRPCMessageSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
} from '@modelcontextprotocol/core';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { isPlainToolCall, plainModernCallOf } from './plain-tool-call.js';
import { describeIssues, requestParamsProblem } from './request-params.js';

/** A JSON-RPC error answer; `id` is null when the line's own id could not be read (JSON-RPC 2.0, section 5). */
export interface LineErrorAnswer {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

/** One line from a client: the message to hand to the protocol, or what the client gets instead. */
export type ReadLine = { message: JSONRPCMessage } | { answer: LineErrorAnswer } | { ignored: true };

const FIX = 'Send one JSON-RPC 2.0 message per line.';

function answer(id: unknown, code: number, message: string): { answer: LineErrorAnswer } {
  const usableId = typeof id === 'string' || Number.isSafeInteger(id) ? (id as string | number) : null;
  return { answer: { jsonrpc: '2.0', id: usableId, error: { code, message } } };
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Why an object is not a JSON-RPC 2.0 message, in the words of the field that is wrong. */
function envelopeProblem(value: Record<string, unknown>): string {
  if (value.jsonrpc !== '2.0')
    return `"jsonrpc" must be "2.0", not ${JSON.stringify(value.jsonrpc) ?? 'missing'}`;
  if ('id' in value && !(typeof value.id === 'string' || Number.isSafeInteger(value.id)))
    return `"id" must be a string or a whole number, not ${kindOf(value.id)}`;
  if ('method' in value) {
    if (typeof value.method !== 'string') return `"method" must be a string, not ${kindOf(value.method)}`;
    const schema = 'id' in value ? JSONRPCRequestSchema : JSONRPCNotificationSchema;
    const parsed = schema.safeParse(value);
    if (!parsed.success) return describeIssues(parsed.error);
  } else {
    return 'it has no "method", "result" or "error"';
  }
  return 'it is not a JSON-RPC 2.0 request, notification or response';
}

/**
 * Reads one line of a stdio client. A line that is not a JSON-RPC message, or a request whose
 * params do not fit its method, is answered here with an error that says what was wrong, so a
 * client is never left waiting on a line the protocol layer would drop or answer with a dump of
 * schema issues.
 */
export function readJsonRpcLine(line: string): ReadLine {
  if (line.trim() === '') return { ignored: true };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return answer(
      null,
      ProtocolErrorCode.ParseError,
      `Parse error: the line is not JSON (${(error as Error).message}). ${FIX}`,
    );
  }
  if (Array.isArray(value))
    return answer(
      null,
      ProtocolErrorCode.InvalidRequest,
      `Invalid Request: batches (JSON arrays) are not accepted. ${FIX}`,
    );
  if (typeof value !== 'object' || value === null)
    return answer(
      null,
      ProtocolErrorCode.InvalidRequest,
      `Invalid Request: expected a JSON object, got ${kindOf(value)}. ${FIX}`,
    );
  // The call every client makes, of either era, is taken without a pass through the schemas.
  if (isPlainToolCall(value) || plainModernCallOf(value)) return { message: value as JSONRPCMessage };
  const record = value as Record<string, unknown>;
  const parsed = JSONRPCMessageSchema.safeParse(record);
  if (!parsed.success) {
    const isCall = typeof record.method === 'string';
    // A notification or a response gets no answer, not even an error (JSON-RPC 2.0, 4.1 and 5).
    if ((isCall && !('id' in record)) || (!isCall && ('result' in record || 'error' in record)))
      return { ignored: true };
    // Only a request's id names something the client is waiting on; any other id (of a line
    // that is not even a call) may be one of the client's own, and an error under it would be
    // taken for the answer to that.
    return answer(
      isCall ? record.id : null,
      ProtocolErrorCode.InvalidRequest,
      `Invalid Request: ${envelopeProblem(record)}. Fix it and send the message again.`,
    );
  }
  const problem = 'id' in record ? requestParamsProblem(record) : undefined;
  if (problem !== undefined) return answer(record.id, ProtocolErrorCode.InvalidParams, problem);
  return { message: parsed.data };
}
