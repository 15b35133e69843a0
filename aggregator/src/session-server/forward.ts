import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { META_KEYS } from '@toolmesh/core';
import type { AuditedCall } from '../audit/audited-call.js';
import type { ToolEntry } from '../registry/registry.js';
import { ErrorCode, McpError } from '../upstream/legacy-error.js';
import type { Upstream } from '../upstream/upstream.js';
import type { LogMessage } from '../upstream/upstream-client.js';
import { UpstreamUnavailable } from '../upstream/upstream-unavailable.js';
import { auditedTool, awaitingApproval, endedWith } from './audited-tool-call.js';
import { approvalRefusal, blockedMessage } from './authorize.js';
import { CallChannel, type Extra } from './call-channel.js';
import { deadlineMessage, deadlineOptions } from './call-deadline.js';
import { parkableCall } from './parkable-call.js';
import type { CallerOfCall } from './relay-target.js';
import { capResult } from './result-budget.js';
import type { ClientSession } from './session.js';
import type { SessionBackend } from './session-backend.js';

/** Passes the server's log messages on as part of this call, so they reach the client with it. */
function logRelay(session: ClientSession, upstream: Upstream, channel: CallChannel) {
  return (params: LogMessage, sentWith: CallerOfCall | undefined) => {
    if (session.carriesLog(upstream.name, channel.active, params.level, sentWith))
      channel.send({ method: 'notifications/message', params });
  };
}

/**
 * The tool as its server lists it now. A server listed from the catalogue cache is started
 * first, so a call is judged by what the server says today, not by what it said when cached.
 */
async function liveEntry(backend: SessionBackend, exposed: string): Promise<ToolEntry | undefined> {
  const cached = backend.registry.tool(exposed);
  const upstream = cached && backend.upstreams.get(cached.server);
  if (upstream?.state !== 'dormant') return cached;
  await upstream.wake();
  return backend.registry.tool(exposed);
}

/**
 * Calls an exposed tool on its server once the session's mode, the workspace and, when asked
 * for, a person allow it (see callDownstream). The call's audit record gets the decision on
 * this tool. A 2026-07-28 call may be parked by its server's question (see parkableCall).
 */
export async function forwardToolCall(
  backend: SessionBackend,
  session: ClientSession,
  exposed: string,
  args: Record<string, unknown> | undefined,
  extra: Extra,
  audit: AuditedCall,
): Promise<CallToolResult> {
  const entry = await liveEntry(backend, exposed);
  if (!entry) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Unknown tool "${exposed}": find tools with search_tool_bm25 or list_my_tools.`,
    );
  }
  // Mode first, then the workspace, and only a call that can run is put to a person.
  const decision = backend.policy.decide(session.mode, entry);
  audit.decided(auditedTool(session, exposed, entry.server, args ?? {}), decision.verdict, decision.rule);
  if (decision.verdict === 'deny') return endedWith(audit, 'refused', blockedMessage(exposed, decision));
  const route = backend.workspaces.route(
    entry,
    backend.isWorkspaceScoped(entry),
    session.workspace,
    args ?? {},
  );
  if ('refusal' in route) return endedWith(audit, 'refused', route.refusal);
  const upstream = backend.upstreams.get(route.upstream);
  if (!upstream) return endedWith(audit, 'unavailable', `server ${entry.server} is no longer configured.`);
  // A server that is down keeps its tools listed, but no one is asked to approve a call it cannot take.
  const availability = backend.availability(upstream.name);
  if (decision.verdict === 'confirm' && !availability.callable)
    return endedWith(audit, 'unavailable', `${exposed} cannot run now: ${availability.reason}.`);
  const refusal = await approvalRefusal(
    backend,
    session,
    { exposed, tool: entry.tool, server: entry.server, arguments: route.arguments, signal: extra.signal },
    decision,
    audit,
  );
  if (typeof refusal === 'string') return endedWith(audit, 'refused', refusal);
  if (refusal) return awaitingApproval(audit, refusal);
  // Only a call that goes ahead teaches discovery: a refused call was never shown to be the
  // right tool, and calls the policy stops must not let anyone steer what others' searches find.
  backend.learning.called(session.id, exposed);
  const call: DownstreamCall = {
    upstream,
    server: entry.server,
    tool: entry.tool.name,
    exposed,
    arguments: route.arguments,
  };
  if (!session.roundTrip)
    return callDownstream(backend, session, call, new CallChannel(extra), extra.signal, audit);
  return parkableCall(backend, session, exposed, route.arguments, extra, audit, (channel, signal) =>
    callDownstream(backend, session, call, channel, signal, audit),
  );
}

/** A call policy let through, as its server is to be asked. */
export interface DownstreamCall {
  upstream: Upstream;
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  exposed: string;
  arguments: Record<string, unknown>;
}

/**
 * Calls the tool on its server with the client's cancellation (`signal`), progress and logging,
 * under the server's timeout. Failures a model can act on come back as `isError` results; a
 * protocol error from the server (bad arguments by its schema) stays a protocol error, as it
 * was sent. The call's audit record gets, for each failure, its outcome.
 */
export async function callDownstream(
  backend: SessionBackend,
  session: ClientSession,
  { upstream, server, tool, exposed, arguments: args }: DownstreamCall,
  channel: CallChannel,
  signal: AbortSignal,
  audit: AuditedCall,
): Promise<CallToolResult> {
  const timeout = upstream.config.timeoutMs ?? backend.config.callTimeoutMs;
  const withProgress = channel.request._meta?.progressToken !== undefined;
  const relayLog = logRelay(session, upstream, channel);
  session.begin(upstream.name, channel.active);
  const leave = session.roundTrip ? backend.whileCalling(session) : undefined;
  upstream.on('log', relayLog);
  const started = performance.now();
  try {
    const result = await upstream.callTool(
      tool,
      args,
      {
        signal,
        ...deadlineOptions(timeout, withProgress),
        ...(withProgress && { onprogress: (progress) => channel.progress(progress) }),
      },
      { [META_KEYS.agent]: session.identity, [META_KEYS.conversation]: session.conversation },
      { session, call: channel.active } satisfies CallerOfCall,
    );
    return capResult(result, backend.config.resultMaxBytes, exposed);
  } catch (error) {
    if (error instanceof UpstreamUnavailable)
      return endedWith(audit, 'unavailable', `${exposed} cannot run now: ${error.message}.`);
    if (signal.aborted) return endedWith(audit, 'cancelled', `${exposed} was cancelled.`);
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return endedWith(
        audit,
        'timeout',
        deadlineMessage(exposed, timeout, performance.now() - started, withProgress),
      );
    }
    if (backend.upstreams.get(upstream.name) !== upstream) {
      return endedWith(
        audit,
        'unavailable',
        `${exposed} was cut off: its server ${server} was removed from toolmesh's config or reconfigured while the call ran. If the tool is still listed, call it again.`,
      );
    }
    if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) {
      audit.ended('protocolError', error.message);
      throw error;
    }
    return endedWith(
      audit,
      'crash',
      `${exposed} failed: ${(error as Error).message}. Its server may be restarting; retry shortly.`,
    );
  } finally {
    upstream.off('log', relayLog);
    leave?.();
    session.end(upstream.name, channel.active);
    await channel.flushed();
  }
}
