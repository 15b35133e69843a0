import type { HttpFrontOptions } from '@toolmesh/core/http';
import { z } from 'zod';
import type { AggregatorState } from '../state/state.js';

type App = Parameters<NonNullable<HttpFrontOptions['routes']>>[0];

const decisionBody = z.strictObject({
  decision: z.enum(['approve', 'deny']),
  reason: z.string().max(2000).optional(),
  by: z.string().min(1).max(200).optional().describe('Who decides, as the audit should name them.'),
});

type ApiRequest = Parameters<Parameters<App['get']>[1]>[0];

export interface ApprovalsApiOptions {
  /** Who decides by this request; throws (a SessionRefusal) when its token may not decide. */
  decider: (request: ApiRequest) => string;
  now?: () => number;
}

/**
 * The HTTP approvals API: `GET /approvals` lists what waits for a person (and counts the caller
 * as a connected approver), `POST /approvals/<id>` decides one. Both need a token that may decide.
 */
export function approvalsApi(state: AggregatorState, { decider, now = Date.now }: ApprovalsApiOptions) {
  return (app: App) => {
    app.get('/approvals', async (req, res) => {
      await state.touchApprover(`http:${decider(req)}`, now());
      res.json({ approvals: await state.pendingApprovals(now()) });
    });
    app.post('/approvals/:id', async (req, res) => {
      const caller = decider(req);
      const parsed = decisionBody.safeParse(req.body);
      if (!parsed.success) {
        res.status(400).json({
          error: `The body must be {"decision": "approve" | "deny", "reason"?: string, "by"?: string}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ')}`,
        });
        return;
      }
      const { decision, reason, by } = parsed.data;
      const decided = await state.decideApproval(
        req.params.id,
        {
          status: decision === 'approve' ? 'approved' : 'denied',
          // The token decides; `by` names the person behind it, for the record.
          decidedBy: by ? `${caller} (${by})` : caller,
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
