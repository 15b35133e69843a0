import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { errorResult } from '@toolmesh/core';
import type { Aggregator } from '../aggregator.js';
import { UpstreamUnavailable } from '../upstream/upstream.js';
import { capResult } from './result-budget.js';
import type { FrontSession } from './session.js';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Passes the client's progress token on: downstream progress reaches the client under it. */
function progressRelay(extra: Extra) {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  return (progress: { progress: number; total?: number; message?: string }) => {
    void extra.sendNotification({
      method: 'notifications/progress',
      params: { ...progress, progressToken: token },
    });
  };
}

/**
 * Calls an exposed tool on its server with the client's cancellation and progress, under the
 * server's timeout. Failures a model can act on come back as `isError` results; a protocol
 * error from the server (bad arguments by its schema) stays a protocol error, as it was sent.
 */
export async function forwardToolCall(
  aggregator: Aggregator,
  session: FrontSession,
  exposed: string,
  args: Record<string, unknown> | undefined,
  extra: Extra,
): Promise<CallToolResult> {
  const entry = aggregator.registry.tool(exposed);
  if (!entry) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Unknown tool "${exposed}": find tools with search_tool_bm25 or list_my_tools.`,
    );
  }
  const upstream = aggregator.upstreams.get(entry.server);
  if (!upstream) return errorResult(`server ${entry.server} is no longer configured.`);
  const timeout = upstream.config.timeoutMs ?? aggregator.config.callTimeoutMs;
  const onprogress = progressRelay(extra);
  session.begin(entry.server);
  try {
    const result = await upstream.callTool(entry.tool.name, args, {
      signal: extra.signal,
      timeout,
      ...(onprogress && { onprogress, resetTimeoutOnProgress: true, maxTotalTimeout: timeout * 4 }),
    });
    return capResult(result, aggregator.config.resultMaxBytes, exposed);
  } catch (error) {
    if (error instanceof UpstreamUnavailable)
      return errorResult(`${exposed} cannot run now: ${error.message}.`);
    if (extra.signal.aborted) return errorResult(`${exposed} was cancelled.`);
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return errorResult(
        `${exposed} did not answer within ${Math.round(timeout / 1000)} s, so the call was cancelled. Retry, or ask for less.`,
      );
    }
    if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) throw error;
    return errorResult(
      `${exposed} failed: ${(error as Error).message}. Its server may be restarting; retry shortly.`,
    );
  } finally {
    session.end(entry.server);
  }
}
