import { SessionRefusal } from '@toolmesh/core/http';
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import type { Aggregator } from '../aggregator.js';
import { renderArguments } from '../approvals/render-arguments.js';
import { AUDIT_OUTCOMES, type AuditQuery } from '../audit/audit-record.js';
import { mayDecide } from '../session-server/approvals-api.js';
import type { ApprovalRecord } from '../state/state.js';
import { withinWorkspaces } from '../workspaces/within-workspaces.js';
import { approverOf, viewerOfRequest } from './browser-guard.js';
import type { FleetServers } from './fleet-servers.js';
import type { ServerHistory } from './server-history.js';
import { serverRows } from './server-rows.js';
import type { ServersAnswer } from './servers-view.js';
import { localSessionRows } from './session-rows.js';
import type { SessionRow } from './sessions-view.js';
import { writtenInTurn } from './written-in-turn.js';

/** What the pages of a fleet's replica read besides its own: every replica's servers and sessions. */
export interface FleetView {
  /** The replica that answers. */
  replica: string;
  servers: FleetServers;
  sessions(): Promise<{ sessions: SessionRow[]; problem?: string }>;
}

export const AUDIT_PAGE_SIZE = 50;
/** The most records one export holds; narrow the filters for older ones. */
export const AUDIT_EXPORT_MAX = 100_000;
const HISTORY_SHOWN = 50;
const SEARCH_HITS = 50;

const text = z.string().trim().min(1).max(200).optional();
const time = z.coerce.number().int().nonnegative().optional();

/** The audit filters of a query string; an empty field is no filter. */
const auditFilters = z.object({
  since: time,
  until: time,
  tool: text,
  server: text,
  identity: text,
  outcome: z.enum(AUDIT_OUTCOMES).optional(),
  mode: text,
  workspace: text,
  page: z.coerce.number().int().min(0).max(100_000).default(0),
});

type AuditFilters = Omit<AuditQuery, 'limit' | 'offset'>;

/** Throws a 400 naming the malformed filter: one silently dropped would show (or export) records it should not. */
export function auditFiltersOf(query: Request['query']): AuditFilters & { page: number } {
  const parsed = auditFilters.safeParse(
    Object.fromEntries(
      Object.entries(query).map(([key, value]) => [
        key,
        typeof value === 'string' && value.trim() === '' ? undefined : value,
      ]),
    ),
  );
  if (!parsed.success)
    throw new SessionRefusal(
      400,
      `Malformed audit filter: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}. Times are epoch milliseconds, text is 1 to 200 characters, page a whole number from 0.`,
    );
  const { page, ...filters } = parsed.data;
  const defined = Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined));
  return { ...(defined as AuditFilters), page };
}

/** The audit query's scope for the viewer of `req`: one limited to some workspaces reads theirs only. */
function viewersWorkspaces(req: Request): Pick<AuditQuery, 'workspaces'> {
  const { workspaces } = viewerOfRequest(req);
  return workspaces ? { workspaces } : {};
}

function shownApproval(approval: ApprovalRecord) {
  const { arguments: args, ...rest } = approval;
  return { ...rest, arguments: renderArguments(args) };
}

/** The dashboard's reads, each from the same place the CLI reads it: the aggregator's live view and the shared state. */
export function dashboardApi(
  router: Router,
  aggregator: Aggregator,
  history: ServerHistory,
  fleet: FleetView | undefined,
): void {
  router.get('/servers', async (_req, res) => {
    // One process: its servers. A fleet: each live replica's, as published in Redis.
    const view = fleet
      ? { fleet: true, ...(await fleet.servers.view()) }
      : {
          fleet: false,
          replicas: [{ self: true, draining: false, servers: serverRows(aggregator, history) }],
        };
    const answer: ServersAnswer = { now: Date.now(), ...view };
    res.json(answer);
  });

  router.get('/tools', (req, res) => {
    const query = typeof req.query.q === 'string' ? req.query.q.trim() : '';
    const modes = aggregator.policy.table.names();
    const found = query
      ? aggregator.index.search(query, SEARCH_HITS).flatMap((hit) => {
          const entry = aggregator.registry.tool(hit.name);
          return entry ? [{ entry, score: hit.score }] : [];
        })
      : aggregator.registry.tools().map((entry) => ({ entry, score: undefined }));
    const tools = found.map(({ entry, score }) => {
      const facts = aggregator.policy.factsOf(entry);
      return {
        name: entry.exposed,
        server: entry.server,
        ...(entry.tool.title && { title: entry.tool.title }),
        ...(entry.tool.description && { description: entry.tool.description }),
        ...(score !== undefined && { score }),
        actions: facts.actions,
        requiresApproval: facts.requiresApproval,
        modes: modes.map((mode) => {
          const decision = aggregator.policy.decide(mode, entry);
          return { mode, verdict: decision.verdict, rule: decision.approvalReason ?? decision.rule };
        }),
      };
    });
    res.json({ modes, tools });
  });

  router.get('/queue', async (req, res) => {
    const viewer = viewerOfRequest(req);
    const now = Date.now();
    const visible = (approval: ApprovalRecord) => mayDecide(approverOf(viewer), approval);
    const [pending, decided] = await Promise.all([
      aggregator.state.pendingApprovals(now),
      aggregator.state.approvalHistory({ limit: HISTORY_SHOWN }),
    ]);
    res.json({
      now,
      canDecide: viewer.approver,
      identity: viewer.identity,
      // The approvals API refuses a decision on one's own call; the page offers none.
      pending: pending
        .filter(visible)
        .map((approval) => ({ ...shownApproval(approval), ownCall: approval.identity === viewer.decidesAs })),
      history: decided
        .filter((approval) => approval.status !== 'pending' && visible(approval))
        .map(shownApproval),
    });
  });

  router.get('/audit', async (req, res) => {
    const { page, ...filters } = auditFiltersOf(req.query);
    const records = await aggregator.state.auditRecords({
      ...filters,
      ...viewersWorkspaces(req),
      limit: AUDIT_PAGE_SIZE + 1,
      offset: page * AUDIT_PAGE_SIZE,
    });
    res.json({
      page,
      pageSize: AUDIT_PAGE_SIZE,
      hasMore: records.length > AUDIT_PAGE_SIZE,
      records: records.slice(0, AUDIT_PAGE_SIZE),
      choices: {
        outcomes: AUDIT_OUTCOMES,
        modes: aggregator.policy.table.names(),
        servers: aggregator.upstreams.list().map((upstream) => upstream.name),
      },
    });
  });

  router.get('/audit.jsonl', async (req: Request, res: Response) => {
    const { page: _page, ...filters } = auditFiltersOf(req.query);
    res.set('Content-Type', 'application/x-ndjson; charset=utf-8');
    res.set('Content-Disposition', 'attachment; filename="toolmesh-audit.jsonl"');
    const batch = 1000;
    const scope = viewersWorkspaces(req);
    for (let offset = 0; offset < AUDIT_EXPORT_MAX; offset += batch) {
      const records = await aggregator.state.auditRecords({ ...filters, ...scope, limit: batch, offset });
      // The next batch is read once the client has taken this one: a client that reads slowly,
      // or not at all, holds one batch here, not the whole export.
      const lines = records.map((record) => `${JSON.stringify(record)}\n`).join('');
      if (lines !== '' && !(await writtenInTurn(res, lines))) return;
      if (records.length < batch) break;
    }
    res.end();
  });

  router.get('/sessions', async (req, res) => {
    // One process: its sessions. A fleet: every replica's, from the session directory in Redis.
    // A viewer limited to some workspaces sees the clients of those only.
    const { workspaces } = viewerOfRequest(req);
    const visible = <Row extends { workspace?: string }>(rows: Row[]) =>
      rows.filter((row) => withinWorkspaces(workspaces, row.workspace));
    const { sessions, ...view } = fleet
      ? { fleet: true, replica: fleet.replica, ...(await fleet.sessions()) }
      : { fleet: false, sessions: localSessionRows(aggregator) };
    res.json({
      now: Date.now(),
      ...view,
      sessions: visible(sessions),
      modernClients: visible(aggregator.modernClients.active()),
    });
  });
}
