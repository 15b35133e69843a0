import { setTimeout as sleep } from 'node:timers/promises';
import type { AggregatorState, ApprovalDecision, ApprovalRecord } from './state.js';

export interface WaitForDecisionOptions {
  /** The call's signal: when it aborts, the approval is closed as declined and the wait ends. */
  signal: AbortSignal;
  pollMs?: number;
  now?: () => number;
}

/**
 * Waits until an approval is decided, by this process or another sharing the state (the
 * `toolmesh approvals` CLI, the HTTP API). Expiry closes it as `timedOut`, a cancelled call as
 * `declined`. A store with notifications (Redis) wakes it when a decision lands, and it looks
 * again at least every `pollMs` all the same; SQLite has none, so there it polls.
 */
export async function waitForDecision(
  state: AggregatorState,
  id: string,
  { signal, pollMs = state.nextDecision ? 1000 : 200, now = Date.now }: WaitForDecisionOptions,
): Promise<ApprovalRecord> {
  for (;;) {
    const record = await state.approval(id);
    if (!record)
      throw new Error(
        `approval ${id} is not in toolmesh's state: was the state file replaced or deleted while the call waited? Retry the call.`,
      );
    if (record.status !== 'pending') return record;
    const closing: ApprovalDecision | undefined = signal.aborted
      ? { status: 'declined', decidedBy: 'toolmesh', reason: 'the call was cancelled' }
      : now() >= record.expiresAt
        ? { status: 'timedOut', decidedBy: 'toolmesh' }
        : undefined;
    if (closing) {
      const closed = await state.decideApproval(id, closing, now());
      // A decider got there first: what they decided stands.
      return closed ?? ((await state.approval(id)) as ApprovalRecord);
    }
    // Expiry is looked at on time, not a poll late.
    const withinMs = Math.max(1, Math.min(pollMs, record.expiresAt - now()));
    // An abort ends the wait early; the next round records the cancellation.
    if (state.nextDecision) await state.nextDecision(id, withinMs, signal);
    else await sleep(withinMs, undefined, { signal }).catch(() => undefined);
  }
}
