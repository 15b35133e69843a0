import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@toolmesh/core';
import { redactArguments } from '../audit/redaction.js';
import type { AggregatorState, ApprovalRecord, ApprovalStatus, NewApproval } from '../state/state.js';
import { waitForDecision } from '../state/wait-for-decision.js';
import { renderArguments } from './render-arguments.js';

/** A call that waits on a person. */
export interface ApprovalAsk {
  /** The session's client, asked first when it supports elicitation. */
  client: Server;
  session: string;
  identity: string;
  workspace?: string;
  mode: string;
  tool: string;
  server: string;
  arguments: Record<string, unknown>;
  reason: string;
  signal: AbortSignal;
}

/** How an approval ended, with the decided status for the audit. */
export type ApprovalOutcome =
  | { approved: true; status: 'approved'; by: string }
  | { approved: false; status: Exclude<ApprovalStatus, 'pending' | 'approved'>; message: string };

export interface ApprovalPortOptions {
  state: AggregatorState;
  timeoutMs: number;
  /** An approver counts as connected when it was seen this recently. */
  approverFreshMs?: number;
  log: Logger;
  now?: () => number;
}

function supportsFormElicitation(client: Server): boolean {
  const elicitation = client.getClientCapabilities()?.elicitation as
    | { form?: object; url?: object }
    | undefined;
  // A bare `elicitation: {}` (protocol revisions before URL mode) means forms.
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

function approvalMessage(ask: ApprovalAsk): string {
  return [
    `toolmesh: ${ask.identity} wants to run ${ask.tool} (server ${ask.server}) in ${ask.mode} mode${ask.workspace ? ` in workspace ${ask.workspace}` : ''}.`,
    `Why approval is needed: ${ask.reason}.`,
    'Arguments:',
    renderArguments(ask.arguments),
    'Accept to run it; decline to refuse.',
  ].join('\n');
}

/**
 * The one way a call gets a person's approval: the client's own elicitation when it has it,
 * else an approver connected to toolmesh (`toolmesh approvals --watch` or the HTTP approvals
 * API), else a refusal. No answer within the timeout is a denial; every decision is kept.
 */
export class ApprovalPort {
  readonly #options: Required<Omit<ApprovalPortOptions, 'now'>> & { now: () => number };

  constructor(options: ApprovalPortOptions) {
    this.#options = { approverFreshMs: 15_000, now: Date.now, ...options };
  }

  async ask(ask: ApprovalAsk): Promise<ApprovalOutcome> {
    if (supportsFormElicitation(ask.client)) return this.#elicit(ask);
    const { state, now, approverFreshMs } = this.#options;
    const approvers = await state.approversSeenSince(now() - approverFreshMs);
    if (approvers.length > 0) {
      const record = await this.#open(ask, 'approver');
      this.#options.log.info(`approval ${record.id} pending: ${ask.tool} (${ask.reason})`);
      return this.#outcome(await waitForDecision(state, record.id, { signal: ask.signal, now }), ask);
    }
    const record = await this.#open(ask, 'none');
    await state.decideApproval(
      record.id,
      { status: 'refused', decidedBy: 'toolmesh', reason: 'no approver connected' },
      now(),
    );
    return {
      approved: false,
      status: 'refused',
      message: `${ask.tool} needs approval (${ask.reason}) but no approver is connected, so it did not run. Use a client that supports elicitation, or have a person run \`toolmesh approvals --watch\` or use the HTTP approvals API, then retry.`,
    };
  }

  async #elicit(ask: ApprovalAsk): Promise<ApprovalOutcome> {
    const { state, now, timeoutMs } = this.#options;
    const record = await this.#open(ask, 'elicitation');
    let status: Exclude<ApprovalStatus, 'pending'>;
    let reason: string | undefined;
    try {
      const answer = await ask.client.elicitInput(
        { message: approvalMessage(ask), requestedSchema: { type: 'object', properties: {} } },
        { signal: ask.signal, timeout: timeoutMs },
      );
      status = answer.action === 'accept' ? 'approved' : 'declined';
    } catch (error) {
      if (ask.signal.aborted) {
        status = 'declined';
        reason = 'the call was cancelled';
      } else if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        status = 'timedOut';
      } else {
        status = 'refused';
        reason = `the client could not ask the user (${(error as Error).message})`;
      }
    }
    const decidedBy = status === 'refused' ? 'toolmesh' : 'user (elicitation)';
    const decided = await state.decideApproval(
      record.id,
      { status, decidedBy, ...(reason && { reason }) },
      now(),
    );
    return this.#outcome(decided ?? (await this.#settledElsewhere(record.id)), ask);
  }

  /**
   * The answer did not land: someone else decided first (what they decided stands), or the user
   * approved after expiry, which must not run the call, so it is closed as timed out.
   */
  async #settledElsewhere(id: string): Promise<ApprovalRecord> {
    const { state, now } = this.#options;
    const record = await state.approval(id);
    if (!record) throw new Error(`approval ${id} is not in toolmesh's state any more; retry the call.`);
    if (record.status !== 'pending') return record;
    const closed = await state.decideApproval(id, { status: 'timedOut', decidedBy: 'toolmesh' }, now());
    return closed ?? ((await state.approval(id)) as ApprovalRecord);
  }

  #open(ask: ApprovalAsk, channel: NewApproval['channel']): Promise<ApprovalRecord> {
    const { state, now, timeoutMs } = this.#options;
    return state.openApproval({
      session: ask.session,
      identity: ask.identity,
      ...(ask.workspace !== undefined && { workspace: ask.workspace }),
      mode: ask.mode,
      tool: ask.tool,
      server: ask.server,
      arguments: redactArguments(ask.arguments),
      reason: ask.reason,
      channel,
      expiresAt: now() + timeoutMs,
    });
  }

  #outcome(record: ApprovalRecord, ask: ApprovalAsk): ApprovalOutcome {
    const by = record.decidedBy ?? 'toolmesh';
    const why = record.decisionReason ? `: ${record.decisionReason}` : '';
    switch (record.status) {
      case 'approved':
        return { approved: true, status: 'approved', by };
      case 'declined':
        return {
          approved: false,
          status: 'declined',
          message: `${ask.tool} was declined by the user${why}; it did not run.`,
        };
      case 'timedOut':
        return {
          approved: false,
          status: 'timedOut',
          message: `${ask.tool} was not approved within ${Math.round(this.#options.timeoutMs / 1000)} s, so it did not run.`,
        };
      case 'pending':
        throw new Error(`approval ${record.id} is still pending; only a decided approval has an outcome`);
      default:
        return {
          approved: false,
          status: record.status,
          message: `${ask.tool} was ${record.status} by ${by}${why}; it did not run.`,
        };
    }
  }
}
