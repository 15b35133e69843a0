import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * A failure of a request to a downstream server as the errors of the 2025 SDK say it, whichever
 * era the server speaks: a JSON-RPC error keeps its code, message and data, a timeout and a lost
 * connection keep their codes, so whoever forwards it tells them apart as it always has.
 * Anything else is left as it is.
 */
export function asLegacyError(error: unknown): unknown {
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
    throw asLegacyError(error);
  }
}
