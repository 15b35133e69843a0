import type { HttpFrontOptions } from '@toolmesh/core/http';
import { z } from 'zod';
import type { AggregatorState, ApprovalRecord } from '../state/state.js';
import { withinWorkspaces } from '../workspaces/within-workspaces.js';

type App = Parameters<NonNullable<HttpFrontOptions['routes']>>[0];

const decisionBody = z.strictObject({
  decision: z.enum(['approve', 'deny']),
  reason: z.string().max(2000).optional(),
  by: z.string().min(1).max(200).optional().describe('Who decides, as the audit should name them.'),
});

type ApiRequest = Parameters<Parameters<App['get']>[1]>[0];

/** Who decides by a request: a name for the record, and the workspaces they may decide for (all when absent). */
export interface Approver {
  name: string;
  workspaces?: readonly string[];
}

export interface ApprovalsApiOptions {
  /** The approver of this request; throws (a SessionRefusal) when its token may not decide. */
  approver: (request: ApiRequest) => Approver;
  now?: () => number;
}

/** Whether an approver may see and decide an approval: one limited to workspaces, only theirs. */
export function mayDecide(approver: Approver, approval: ApprovalRecord): boolean {
  return withinWorkspaces(approver.workspaces, approval.workspace);
}

/**
 * The HTTP approvals API: `GET /approvals` lists what waits for a person (and counts the caller
 * as a connected approver), `POST /approvals/<id>` decides one. Both need a token that may
 * decide; an approver limited to some workspaces sees and decides only theirs, and nobody
 * decides a call their own token asked for.
 */
export function approvalsApi(state: AggregatorState, { approver, now = Date.now }: ApprovalsApiOptions) {
  return (app: App) => {
    app.get('/approvals', async (req, res) => {
      const caller = approver(req);
      await state.touchApprover(caller.name, now());
      const pending = await state.pendingApprovals(now());
      res.json({ approvals: pending.filter((approval) => mayDecide(caller, approval)) });
    });
    app.post('/approvals/:id', async (req, res) => {
      const caller = approver(req);
      const parsed = decisionBody.safeParse(req.body);
      if (!parsed.success) {
        res.status(400).json({
          error: `The body must be {"decision": "approve" | "deny", "reason"?: string, "by"?: string}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ')}`,
        });
        return;
      }
      const pending = await state.approval(req.params.id);
      if (pending && !mayDecide(caller, pending)) {
        res.status(403).json({
          error: `${caller.name} may decide approvals in workspaces ${caller.workspaces?.join(', ')} only; this one is ${pending.workspace ? `in ${pending.workspace}` : 'in no workspace'}.`,
        });
        return;
      }
      if (pending && pending.identity === caller.name) {
        res.status(403).json({
          error: `${caller.name} asked for this call, so it cannot approve it: a person decides with another approver token or with toolmesh approvals on this machine.`,
        });
        return;
      }
      const { decision, reason, by } = parsed.data;
      const decided = await state.decideApproval(
        req.params.id,
        {
          status: decision === 'approve' ? 'approved' : 'denied',
          // The token decides; `by` names the person behind it, for the record.
          decidedBy: by ? `${caller.name} (${by})` : caller.name,
          ...(reason && { reason }),
        },
        now(),
      );
      if (!decided) {
        res.status(404).json({
          error: `Approval ${req.params.id} is not pending: it was decided already, it expired, or it never existed. GET /approvals lists the pending ones.`,
        });
        return;
      }
      res.json({ approval: decided });
    });
  };
}
