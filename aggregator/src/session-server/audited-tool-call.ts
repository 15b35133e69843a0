import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorResult } from '@toolmesh/core';
import type { ApprovalAsked } from '../approvals/approval-port.js';
import type { AuditOutcome } from '../audit/audit-record.js';
import type { AuditedCall, DecidedTool } from '../audit/audited-call.js';
import { WORKSPACE_PARAMETER } from '../workspaces/workspace-scope.js';
import type { ClientSession } from './session.js';
import type { SessionBackend } from './session-backend.js';

/** A tool as the audit names it, in the workspace the call works in: the session's, or the one it names. */
export function auditedTool(
  session: ClientSession,
  tool: string,
  server: string,
  args: Record<string, unknown>,
): DecidedTool {
  const named = args[WORKSPACE_PARAMETER];
  const workspace = session.workspace ?? (typeof named === 'string' ? named : undefined);
  return { tool, server, arguments: args, ...(workspace !== undefined && { workspace }) };
}

/** An error result for the client, with the outcome the audit records for it. */
export function endedWith(audit: AuditedCall, outcome: AuditOutcome, message: string): CallToolResult {
  audit.ended(outcome, message);
  return errorResult(message);
}

/**
 * The first round of an approval by round trip: the call did not run (audited as refused, with
 * the approval it waits for); the client is answered input_required, which the SDK's tools/call
 * handler passes on in place of a tool result. The retry is audited as the call it is.
 */
export function awaitingApproval(audit: AuditedCall, asked: ApprovalAsked): CallToolResult {
  audit.ended(
    'refused',
    `waiting for a person: approval ${asked.approval} was asked of the client (input_required)`,
  );
  return asked.result as unknown as CallToolResult;
}

function textOf(result: CallToolResult): string {
  return result.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}

/** Rounds of calls parked for their clients' answers: their audit record is written when the call ends. */
const parkedRounds = new WeakSet<object>();

/** Marks `result` as a round that parked its call: the call's record stays open. */
export function parkedRound<R extends object>(result: R): CallToolResult {
  parkedRounds.add(result);
  return result as unknown as CallToolResult;
}

/**
 * Runs one tools/call under the audit. While the audit cannot be written the call is refused
 * before it runs. Once it ran, a call that reached policy is recorded exactly once (see
 * settledCall).
 */
export async function auditedToolCall(
  backend: SessionBackend,
  session: ClientSession,
  run: (audit: AuditedCall) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const refusal = await backend.audit.refusal();
  if (refusal) return errorResult(refusal);
  const audit = backend.audit.open({
    identity: session.identity,
    session: session.id,
    mode: session.mode,
  });
  return settledCall(backend, audit, () => run(audit));
}

/**
 * Runs a call, or the round of a parked call, and records it once it ended: with the outcome the
 * code closest to the failure gave, else the result's. A record that cannot be written replaces
 * the result with an error saying so. A round that parks the call leaves its record open.
 */
export async function settledCall(
  backend: Pick<SessionBackend, 'audit' | 'callObservers'>,
  audit: AuditedCall,
  run: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  let result: CallToolResult | undefined;
  let thrown: unknown;
  try {
    result = await run();
    if (parkedRounds.has(result)) return result;
    if (result.isError) audit.ended('isError', textOf(result));
    else audit.ended('ok');
  } catch (error) {
    // A protocol error (the server's, or an unknown tool's) reaches the client as it was thrown.
    thrown = error;
    audit.ended('protocolError', (error as Error).message);
  }
  const record = audit.record();
  if (record) for (const observe of backend.callObservers) observe(record);
  const failure = record && (await backend.audit.write(record));
  audit.settled();
  if (failure) return errorResult(failure);
  if (!result) throw thrown;
  return result;
}
