import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { isPlainToolCall } from './plain-tool-call.js';
import { requestParamsProblem } from './request-params.js';

/**
 * Answers a request whose params do not fit its method with InvalidParams naming the fields,
 * before the server connected to `transport` sees it. For transports whose messages arrive
 * already parsed (Streamable HTTP, legacy SSE); the stdio line transport checks its lines itself.
 */
export function guardRequestParams(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    if (isPlainToolCall(message) || !isJSONRPCRequest(message)) return deliver(message, extra);
    const problem = requestParamsProblem(message);
    if (problem === undefined) return deliver(message, extra);
    void transport
      .send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: problem } })
      .catch(() => undefined);
  };
}
