import { type ConnectionKit, connectionKit } from './connection-kit-loader.js';

/**
 * The error codes of the 2025 SDK that toolmesh tells apart: JSON-RPC's, and the SDK's own for a
 * lost connection and a request that timed out (the 2026 SDK says those two with SdkError).
 */
export const ErrorCode = {
  ConnectionClosed: -32000,
  RequestTimeout: -32001,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/**
 * An error as the 2025 SDK's McpError says it, message prefix included, so clients read the
 * same answers as ever; made here rather than imported, as that SDK's `types.js` builds every
 * schema of the protocol with zod when it loads, which `toolmesh serve` would pay at each start.
 */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`MCP error ${code}: ${message}`);
    this.name = 'McpError';
  }
}

/**
 * A failure of a request to a downstream server as the errors of the 2025 SDK say it, whichever
 * era the server speaks: a JSON-RPC error keeps its code, message and data, a timeout and a lost
 * connection keep their codes, so whoever forwards it tells them apart as it always has.
 * Anything else is left as it is.
 */
function asLegacyError(error: unknown, { ProtocolError, SdkError, SdkErrorCode }: ConnectionKit): unknown {
  if (error instanceof ProtocolError) return new McpError(error.code, error.message, error.data);
  if (!(error instanceof SdkError)) return error;
  if (error.code === SdkErrorCode.RequestTimeout)
    return new McpError(ErrorCode.RequestTimeout, 'Request timed out', error.data);
  if (error.code === SdkErrorCode.ConnectionClosed)
    return new McpError(ErrorCode.ConnectionClosed, 'Connection closed');
  return error;
}

/** Runs one request, its failure said as `asLegacyError` says it. */
export async function inLegacyTerms<T>(request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (error) {
    // A request was made, so a server was started and the kit is loaded: this waits for nothing.
    throw asLegacyError(error, await connectionKit());
  }
}
