import {
  type InputRequiredResult,
  inputRequired,
  SdkErrorCode,
  type Server,
} from '@modelcontextprotocol/server';
import type { Logger } from '@toolmesh/core';
import { redactArguments } from '../audit/redaction.js';
import type { AggregatorState, ApprovalRecord, ApprovalStatus, NewApproval } from '../state/state.js';
import { waitForDecision } from '../state/wait-for-decision.js';
import { ErrorCode } from '../upstream/legacy-error.js';
import { renderArguments } from './render-arguments.js';
import type { RequestStateSeal } from './request-state.js';

/** A call that waits on a person. */
export interface ApprovalAsk {
  /**
   * The session's client, asked first when it supports elicitation; absent for a 2026-07-28
   * request, which cannot be sent a request (its approval is a round trip of the call).
   */
  client?: Server;
  session: string;
  identity: string;
  workspace?: string;
  mode: string;
  tool: string;
  server: string;
  arguments: Record<string, unknown>;
  reason: string;
  signal: AbortSignal;
  /** Told the approval's id once it is open, before anyone can decide it. */
  onOpened?: (id: string) => void;
}

/**
 * A 2026-07-28 request that needs approval: it cannot be sent a request, so the person is asked
 * by a round trip of the call itself, and the retry brings the answer and the sealed state back.
 */
export interface RoundTripAsk extends Omit<ApprovalAsk, 'client'> {
  /** The state id of the caller's principal: the state is bound to it. */
  principal: string;
  /** What the retry echoed (attacker-controlled until opened); undefined on the first round. */
  requestState: unknown;
  inputResponses: Record<string, unknown> | undefined;
}

/** The first round of an approval by round trip: the client is to ask its user and call again. */
export interface ApprovalAsked {
  asked: true;
  approval: string;
  result: InputRequiredResult;
}

/** The key of the approval's answer in `inputRequests` and `inputResponses`. */
const APPROVAL_INPUT = 'approval';

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

function supportsFormElicitation(client: Server | undefined): client is Server {
  const elicitation = client?.getClientCapabilities()?.elicitation as
    | { form?: object; url?: object }
    | undefined;
  // A bare `elicitation: {}` (protocol revisions before URL mode) means forms.
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

/** A request to the client that got no answer in time, as the v2 SDK (or a v1 peer) says so. */
const isTimeout = (error: unknown) => {
  const code = (error as { code?: unknown }).code;
  return code === SdkErrorCode.RequestTimeout || code === ErrorCode.RequestTimeout;
};

function approvalMessage(ask: Omit<ApprovalAsk, 'client'>): string {
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
    if (supportsFormElicitation(ask.client)) return this.#elicit(ask, ask.client);
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

  /**
   * Approval by round trip for a 2026-07-28 request. The first round opens the approval and
   * answers input_required with the approval form and a sealed state naming the approval, the
   * principal, the tool, a digest of the arguments and the approval's expiry. The retry is
   * judged by that state: one altered, of another principal or tool, for other arguments,
   * expired or already used (deciding the approval is atomic, so its id is a single-use nonce)
   * is refused, saying why.
   */
  async roundTrip(ask: RoundTripAsk, seal: RequestStateSeal): Promise<ApprovalOutcome | ApprovalAsked> {
    const { state, now } = this.#options;
    if (ask.requestState === undefined) {
      const record = await this.#open(ask, 'elicitation');
      const requestState = seal.seal({
        kind: 'approval',
        approval: record.id,
        principal: ask.principal,
        tool: ask.tool,
        digest: seal.digest(ask.arguments),
        expiresAt: record.expiresAt,
      });
      const form = inputRequired.elicit({
        message: approvalMessage(ask),
        requestedSchema: { type: 'object', properties: {} },
      });
      return {
        asked: true,
        approval: record.id,
        result: inputRequired({ inputRequests: { [APPROVAL_INPUT]: form }, requestState }),
      };
    }
    const refused = (why: string): ApprovalOutcome => ({
      approved: false,
      status: 'refused',
      message: `${ask.tool} did not run: ${why}. Call it again without requestState to ask for approval anew.`,
    });
    const checked = seal.check(ask.requestState, 'approval', ask);
    if ('problem' in checked) return refused(checked.problem);
    const claimed = checked.state;
    if (claimed.expiresAt <= now()) {
      await state.decideApproval(claimed.approval, { status: 'timedOut', decidedBy: 'toolmesh' }, now());
      return refused(`the approval expired at ${new Date(claimed.expiresAt).toISOString()}`);
    }
    const answer = ask.inputResponses?.[APPROVAL_INPUT] as { action?: unknown } | undefined;
    const decided = await state.decideApproval(
      claimed.approval,
      answer?.action === 'accept'
        ? { status: 'approved', decidedBy: 'user (elicitation)' }
        : {
            status: 'declined',
            decidedBy: 'user (elicitation)',
            ...(answer === undefined && { reason: 'the retry carried no answer' }),
          },
      now(),
    );
    if (!decided)
      return refused(
        `the request state was used already (approval ${claimed.approval} is decided): a state runs one call`,
      );
    return this.#outcome(decided, ask);
  }

  async #elicit(ask: ApprovalAsk, client: Server): Promise<ApprovalOutcome> {
    const { state, now, timeoutMs } = this.#options;
    const record = await this.#open(ask, 'elicitation');
    let status: Exclude<ApprovalStatus, 'pending'>;
    let reason: string | undefined;
    try {
      const answer = await client.elicitInput(
        { message: approvalMessage(ask), requestedSchema: { type: 'object', properties: {} } },
        { signal: ask.signal, timeout: timeoutMs },
      );
      status = answer.action === 'accept' ? 'approved' : 'declined';
    } catch (error) {
      if (ask.signal.aborted) {
        status = 'declined';
        reason = 'the call was cancelled';
      } else if (isTimeout(error)) {
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

  async #open(ask: Omit<ApprovalAsk, 'client'>, channel: NewApproval['channel']): Promise<ApprovalRecord> {
    const { state, now, timeoutMs } = this.#options;
    const record = await state.openApproval({
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
    ask.onOpened?.(record.id);
    return record;
  }

  #outcome(record: ApprovalRecord, ask: Omit<ApprovalAsk, 'client'>): ApprovalOutcome {
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
