import type { AuditLog } from '../audit/audit-log.js';
import type { AuditRecord } from '../audit/audit-record.js';
import type { InFlightCall } from '../audit/audited-call.js';
import type { AggregatorState } from '../state/state.js';

/**
 * Records the calls a dead replica left unfinished as cut off. The approval one of them waited
 * on is closed first (refused), so no person approves a call nobody will run; a call whose
 * approval was already decided may have run, and its record says so.
 */
export async function recordCutOffCalls(
  replica: string,
  calls: readonly InFlightCall[],
  audit: Pick<AuditLog, 'write'>,
  state: Pick<AggregatorState, 'decideApproval'>,
  now: () => number = Date.now,
): Promise<void> {
  for (const { pendingApproval, ...call } of calls) {
    const closed =
      pendingApproval !== undefined &&
      (await state.decideApproval(
        pendingApproval,
        {
          status: 'refused',
          decidedBy: 'toolmesh',
          reason: `the toolmesh replica ${replica} that waited on it stopped, so the call cannot run`,
        },
        now(),
      )) !== undefined;
    const record: AuditRecord = {
      ...call,
      ...(closed && { approval: 'refused' as const }),
      outcome: 'cutOff',
      error: closed
        ? `the toolmesh replica ${replica} stopped while this call waited for approval: it did not run, so its client must retry it`
        : `the toolmesh replica ${replica} stopped before this call answered: it may or may not have run, so its client must retry it`,
      durationMs: Math.max(0, now() - call.time),
    };
    await audit.write(record);
  }
}
