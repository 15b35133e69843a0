import type { AggregatorState, ApprovalRecord } from './state.js';

/**
 * Waits until an approval is decided, by this process or another sharing the state. Expiry is a
 * denial, recorded as `timedOut`; a cancelled call records `declined`. SQLite has no
 * notifications, so this polls.
 */
export async function waitForDecision(
  state: AggregatorState,
  id: string,
  options: { signal: AbortSignal; pollMs?: number; now?: () => number },
): Promise<ApprovalRecord> {
  const { signal, pollMs = 200, now = Date.now } = options;
  for (;;) {
    const record = await state.approval(id);
    if (!record) throw new Error(`approval ${id} disappeared from toolmesh's state`);
    if (record.status !== 'pending') return record;
    const closing = signal.aborted
      ? { status: 'declined' as const, reason: 'the call was cancelled' }
      : now() >= record.expiresAt
        ? { status: 'timedOut' as const }
        : undefined;
    if (closing) {
      const decided = await state.decideApproval(id, { ...closing, decidedBy: 'toolmesh' }, now());
      // Lost a race with a decider: what they decided stands.
      return decided ?? ((await state.approval(id)) as ApprovalRecord);
    }
    await pause(pollMs, signal);
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
