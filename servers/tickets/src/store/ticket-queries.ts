import { RESOLVED_STATUSES, TERMINAL_STATUSES } from './statuses.js';
import { type Row, SELECT, type TicketRows } from './ticket-rows.js';
import { type ListedTickets, type TicketFilter, type TicketSummary, TOTAL_COUNTED_UP_TO } from './types.js';

/** One read transaction: the rows and their count come from the same state of the file. */
export function listTickets(
  from: TicketRows,
  workspace: string,
  filter: TicketFilter,
  window: { offset: number; limit: number },
): ListedTickets {
  return from.db.transaction(() => listInSnapshot(from, workspace, filter, window))();
}

function listInSnapshot(
  from: TicketRows,
  workspace: string,
  filter: TicketFilter,
  window: { offset: number; limit: number },
): ListedTickets {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.status?.length) {
    where.push(`t.status IN (${filter.status.map(() => '?').join(', ')})`);
    params.push(...filter.status);
  }
  if (filter.priority?.length) {
    where.push(`t.priority IN (${filter.priority.map(() => '?').join(', ')})`);
    params.push(...filter.priority);
  }
  if (filter.label !== undefined) {
    where.push('EXISTS (SELECT 1 FROM ticket_labels l WHERE l.ticket_id = t.id AND l.label = ?)');
    params.push(filter.label);
  }
  if (filter.parent !== undefined) {
    where.push('t.parent_id = ?');
    params.push(from.row(workspace, filter.parent).id);
  }
  if (filter.text !== undefined && filter.text.trim() !== '') {
    // Words through the full-text index, never a LIKE scan of every row.
    const has = from.searchIndex.titleOrDescriptionHas(workspace, filter.text);
    if (has === null) return { total: 0, totalAtLeast: false, tickets: [] };
    where.push(has.sql);
    params.push(has.param);
  }
  const order = {
    priority: 't.priority ASC, t.number ASC',
    created: 't.created_at DESC, t.number DESC',
    updated: 't.updated_at DESC, t.number DESC',
    number: 't.number ASC',
  }[filter.sort ?? 'priority'];
  const rest = where.map((w) => ` AND ${w}`).join('');
  const who = filter.assignee;
  const scope =
    who === undefined
      ? { sql: 't.workspace = ?', params: [workspace] }
      : {
          sql: 't.workspace = ? AND (t.assignee_agent = ? OR t.assignee_team = ?)',
          params: [workspace, who, who],
        };
  // Counted with the workspace inside each side of the OR, so each side reads its own
  // (workspace, assignee, priority) index instead of every ticket of the workspace.
  const counted =
    who === undefined
      ? scope
      : {
          sql: '((t.workspace = ? AND t.assignee_agent = ?) OR (t.workspace = ? AND t.assignee_team = ?))',
          params: [workspace, who, workspace, who],
        };
  // Only the window is read and summarised (labels are a query each), however many match; this
  // shape lets SQLite walk the sort order's index and stop at the window.
  const rows = from
    .sql(`${SELECT} WHERE ${scope.sql}${rest} ORDER BY ${order} LIMIT ? OFFSET ?`)
    .all(...scope.params, ...params, window.limit, window.offset) as Row[];
  const tickets = rows.map((row) => from.summary(row));
  const windowEnded = window.limit < 0 || rows.length < window.limit;
  if (windowEnded && (rows.length > 0 || window.offset === 0)) {
    return { total: window.offset + rows.length, totalAtLeast: false, tickets };
  }
  // Counted no further than needed: past the window (so a caller can tell there are more) and
  // at least to TOTAL_COUNTED_UP_TO. An exact count of a large match read every one of them.
  // One more is counted, so that a match of exactly countUpTo is told apart from a larger one.
  const countUpTo = Math.max(TOTAL_COUNTED_UP_TO, window.offset + Math.max(window.limit, 0) + 1);
  const found = count(from, `${counted.sql}${rest}`, [...counted.params, ...params], countUpTo + 1);
  return found > countUpTo
    ? { total: countUpTo, totalAtLeast: true, tickets }
    : { total: found, totalAtLeast: false, tickets };
}

function count(from: TicketRows, condition: string, params: unknown[], upTo: number): number {
  return from
    .sql(`SELECT count(*) FROM (SELECT 1 FROM tickets t WHERE ${condition} LIMIT ?)`)
    .pluck()
    .get(...params, upTo) as number;
}

/** The open tickets no unresolved ticket blocks, most urgent first. */
export function readyTickets(from: TicketRows, workspace: string, assignee?: string): TicketSummary[] {
  const terminal = TERMINAL_STATUSES.map((s) => `'${s}'`).join(', ');
  const resolved = RESOLVED_STATUSES.map((s) => `'${s}'`).join(', ');
  const params: unknown[] = [workspace];
  let who = '';
  if (assignee !== undefined) {
    who = 'AND (t.assignee_agent = ? OR t.assignee_team = ?)';
    params.push(assignee, assignee);
  }
  const rows = from
    .sql(
      `${SELECT} WHERE t.workspace = ? AND t.status NOT IN (${terminal}) ${who}
       AND NOT EXISTS (SELECT 1 FROM relations r JOIN tickets b ON b.id = r.from_id
                       WHERE r.to_id = t.id AND r.kind = 'blocks' AND b.status NOT IN (${resolved}))
       ORDER BY t.priority, t.number`,
    )
    .all(...params) as Row[];
  return rows.map((row) => from.summary(row));
}
