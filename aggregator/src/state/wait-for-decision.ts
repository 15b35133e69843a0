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
 * `declined`. SQLite has no notifications, so this polls.
 */
export async function waitForDecision(
  state: AggregatorState,
  id: string,
  { signal, pollMs = 200, now = Date.now }: WaitForDecisionOptions,
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
    // An abort ends the sleep early (rejecting it); the next round records the cancellation.
    await sleep(pollMs, undefined, { signal }).catch(() => undefined);
  }
}
