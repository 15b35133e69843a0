import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalAsk, ApprovalAsked, ApprovalOutcome } from '../approvals/approval-port.js';
import type { AuditedCall } from '../audit/audited-call.js';
import type { PolicyDecision } from '../policy/mode-table.js';
import type { NamedTool } from '../policy/policy.js';
import { argumentsMisfit } from './argument-check.js';
import { auditedTool } from './audited-tool-call.js';
import type { ClientSession } from './session.js';
import type { SessionBackend } from './session-backend.js';

export interface CallToAuthorize {
  exposed: string;
  /** The tool as its server lists it: its input schema is checked before anyone is asked. */
  tool: Tool;
  server: string;
  arguments: Record<string, unknown>;
  signal: AbortSignal;
}

/** What a model reads when the session's mode denies a call: the mode, the rule, the way out. */
export function blockedMessage(exposed: string, decision: PolicyDecision): string {
  return `${exposed} is blocked in ${decision.mode} mode: ${decision.rule}. ${decision.remedy ?? ''}`.trim();
}

/**
 * For a call its mode lets through only with approval: undefined once approved, else why not.
 * A call whose arguments do not fit the tool's input schema could never run, so nobody is asked
 * about it. The audit gets how the approval ended.
 */
export async function approvalRefusal(
  backend: SessionBackend,
  session: ClientSession,
  call: CallToAuthorize,
  decision: PolicyDecision,
  audit: AuditedCall,
): Promise<string | ApprovalAsked | undefined> {
  if (decision.verdict !== 'confirm') return undefined;
  const misfit = await argumentsMisfit(call.tool, call.arguments);
  if (misfit)
    return `${call.exposed} was not run, and no one was asked to approve it: ${misfit}. Correct the arguments by its input schema (search_tool_bm25 shows it) and call again.`;
  const { workspace } = auditedTool(session, call.exposed, call.server, call.arguments);
  const outcome = await askApproval(backend, session, {
    session: session.id,
    identity: session.identity,
    ...(workspace !== undefined && { workspace }),
    mode: session.mode,
    tool: call.exposed,
    server: call.server,
    arguments: call.arguments,
    reason: decision.approvalReason ?? decision.rule,
    signal: call.signal,
    onOpened: (id) => audit.awaitingApproval(id),
  });
  if ('asked' in outcome) return outcome;
  audit.approved(outcome.status);
  return outcome.approved ? undefined : outcome.message;
}

/**
 * Asks a person to approve a call in the session's era: a 2025 session's client by elicitation;
 * a 2026-07-28 client whose client can show a form by a round trip of the call (the first round
 * answers `asked`); otherwise a connected approver, else a refusal.
 */
export function askApproval(
  backend: SessionBackend,
  session: ClientSession,
  ask: Omit<ApprovalAsk, 'client'>,
): Promise<ApprovalOutcome | ApprovalAsked> {
  const { roundTrip } = session;
  if (!roundTrip) return backend.approvals.ask({ ...ask, client: session.server });
  if (!roundTrip.declares.has('elicitation') && roundTrip.requestState === undefined)
    return backend.approvals.ask(ask);
  return backend.approvals.roundTrip(
    {
      ...ask,
      principal: session.id,
      requestState: roundTrip.requestState,
      inputResponses: roundTrip.inputResponses,
    },
    backend.requestStateSeal,
  );
}

/** The whole policy of one call of toolmesh's own tools: the mode, then approval, both audited. */
export async function refusalOf(
  backend: SessionBackend,
  session: ClientSession,
  call: CallToAuthorize & NamedTool,
  audit: AuditedCall,
): Promise<string | ApprovalAsked | undefined> {
  const decision = backend.policy.decide(session.mode, call);
  audit.decided(
    auditedTool(session, call.exposed, call.server, call.arguments),
    decision.verdict,
    decision.rule,
  );
  if (decision.verdict === 'deny') return blockedMessage(call.exposed, decision);
  return approvalRefusal(backend, session, call, decision, audit);
}
