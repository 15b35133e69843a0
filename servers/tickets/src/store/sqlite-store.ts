import {
  NEWEST_FIRST_NOTE,
  openDatabase,
  type SqliteDatabase,
  statementCache,
  ToolError,
} from '@toolmesh/core';
import { parseExport } from './import-format.js';
import { TICKET_MIGRATIONS } from './migrations.js';
import { formatRef, notFound, parsePr, parseRef } from './refs.js';
import { edgeOf, kindSeenFrom, type RelationKind, type StoredKind } from './relations.js';
import { SearchIndex } from './search-index.js';
import { type Priority, RESOLVED_STATUSES, type Status, TERMINAL_STATUSES } from './statuses.js';
import type { Actor, TicketStore } from './store.js';
import {
  type Assignee,
  type Comment,
  type ListedTickets,
  type NewTicket,
  type RelationView,
  type SearchResult,
  type Ticket,
  type TicketChanges,
  type TicketDetail,
  type TicketEvent,
  type TicketFilter,
  type TicketSummary,
  TOTAL_COUNTED_UP_TO,
  type WorkspaceExport,
} from './types.js';

export const DEFAULT_MAX_DELEGATION_DEPTH = 5;

interface Row {
  id: number;
  workspace: string;
  number: number;
  title: string;
  description: string;
  status: Status;
  priority: Priority;
  assignee_agent: string | null;
  assignee_team: string | null;
  parent_id: number | null;
  parent_number: number | null;
  author: string;
  output: string | null;
  error: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

const SELECT = `SELECT t.*, p.number AS parent_number FROM tickets t LEFT JOIN tickets p ON p.id = t.parent_id`;

/** Thrown inside a transaction to undo a dry run after every check has run for real. */
class DryRun extends Error {
  constructor(readonly result: Ticket[]) {
    super('dry run');
  }
}

export interface SqliteTicketStoreOptions {
  maxDelegationDepth?: number;
  now?: () => Date;
}

export class SqliteTicketStore implements TicketStore {
  readonly db: SqliteDatabase;
  private readonly sql: ReturnType<typeof statementCache>;
  private readonly searchIndex: SearchIndex;
  private readonly maxDepth: number;
  private readonly now: () => Date;

  constructor(file: string, options: SqliteTicketStoreOptions = {}) {
    this.db = openDatabase(file, TICKET_MIGRATIONS);
    this.sql = statementCache(this.db);
    this.searchIndex = new SearchIndex(this.db);
    this.maxDepth = options.maxDelegationDepth ?? DEFAULT_MAX_DELEGATION_DEPTH;
    this.now = options.now ?? (() => new Date());
  }

  shutdown(): void {
    if (this.db.open) this.db.close();
  }

  /** IMMEDIATE takes the write lock up front, so two processes wait on busy_timeout instead of deadlocking. */
  private write<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  private stamp(): string {
    return this.now().toISOString();
  }

  private row(workspace: string, ref: string): Row {
    const row = this.sql(`${SELECT} WHERE t.workspace = ? AND t.number = ?`).get(workspace, parseRef(ref)) as
      | Row
      | undefined;
    if (!row) throw notFound(ref, workspace);
    return row;
  }

  private rowById(id: number): Row {
    return this.sql(`${SELECT} WHERE t.id = ?`).get(id) as Row;
  }

  private labels(id: number): string[] {
    return (
      this.sql('SELECT label FROM ticket_labels WHERE ticket_id = ? ORDER BY label').all(id) as {
        label: string;
      }[]
    ).map((r) => r.label);
  }

  private summary(row: Row): TicketSummary {
    return {
      id: formatRef(row.number),
      title: row.title,
      status: row.status,
      priority: row.priority,
      labels: this.labels(row.id),
      assignee: { agent: row.assignee_agent, team: row.assignee_team },
      parent: row.parent_number === null ? null : formatRef(row.parent_number),
      updatedAt: row.updated_at,
      version: row.version,
    };
  }

  private ticket(row: Row): Ticket {
    return {
      ...this.summary(row),
      workspace_id: row.workspace,
      description: row.description,
      collaborators: (
        this.sql('SELECT name FROM ticket_collaborators WHERE ticket_id = ? ORDER BY name').all(row.id) as {
          name: string;
        }[]
      ).map((r) => r.name),
      author: row.author,
      createdAt: row.created_at,
      output: row.output,
      error: row.error,
      prs: (
        this.sql('SELECT pr FROM pr_links WHERE ticket_id = ? ORDER BY created_at, rowid').all(row.id) as {
          pr: string;
        }[]
      ).map((r) => r.pr),
    };
  }

  private comments(id: number): Comment[] {
    return (
      this.sql('SELECT author, body, created_at FROM comments WHERE ticket_id = ? ORDER BY id').all(id) as {
        author: string;
        body: string;
        created_at: string;
      }[]
    ).map((r) => ({ author: r.author, body: r.body, createdAt: r.created_at }));
  }

  private event(actor: Actor, id: number, kind: string, detail: Record<string, unknown>): void {
    this.sql('INSERT INTO events (ticket_id, author, kind, detail, created_at) VALUES (?, ?, ?, ?, ?)').run(
      id,
      actor.identity,
      kind,
      JSON.stringify(detail),
      this.stamp(),
    );
  }

  /** Every change bumps the version, so expected_version means "nothing changed since I read it". */
  private touch(id: number): void {
    this.sql('UPDATE tickets SET version = version + 1, updated_at = ? WHERE id = ?').run(this.stamp(), id);
  }

  private setLabels(id: number, labels: readonly string[]): void {
    this.sql('DELETE FROM ticket_labels WHERE ticket_id = ?').run(id);
    const insert = this.sql('INSERT OR IGNORE INTO ticket_labels (ticket_id, label) VALUES (?, ?)');
    for (const label of labels) insert.run(id, label.trim());
  }

  private depth(id: number): number {
    let depth = 0;
    let current = this.rowById(id).parent_id;
    while (current !== null) {
      depth++;
      current = this.rowById(current).parent_id;
    }
    return depth;
  }

  private insertTicket(actor: Actor, spec: NewTicket, parentId: number | null): Row {
    const title = spec.title.trim();
    if (title === '') throw new ToolError('a ticket needs a non-empty title.', 'invalid_ticket');
    const next = this.sql('SELECT COALESCE(MAX(number), 0) + 1 AS next FROM tickets WHERE workspace = ?').get(
      actor.workspace,
    ) as { next: number };
    const at = this.stamp();
    const { lastInsertRowid } = this.sql(
      `INSERT INTO tickets (workspace, number, title, description, status, priority, assignee_agent,
           assignee_team, parent_id, author, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      actor.workspace,
      next.next,
      title,
      spec.description ?? '',
      spec.status ?? 'todo',
      spec.priority ?? 'P2',
      spec.assignee?.agent ?? null,
      spec.assignee?.team ?? null,
      parentId,
      actor.identity,
      at,
      at,
    );
    const id = Number(lastInsertRowid);
    this.setLabels(id, spec.labels ?? []);
    this.searchIndex.put(id);
    const row = this.rowById(id);
    this.event(actor, id, 'created', {
      title,
      status: row.status,
      priority: row.priority,
      ...(row.parent_number !== null && { parent: formatRef(row.parent_number) }),
    });
    return row;
  }

  create(actor: Actor, tickets: readonly NewTicket[], options: { dryRun?: boolean } = {}): Ticket[] {
    try {
      return this.write(() => {
        const created = tickets.map((spec) => {
          const parent = spec.parent === undefined ? null : this.row(actor.workspace, spec.parent);
          const row = this.insertTicket(actor, spec, parent?.id ?? null);
          if (parent) this.touch(parent.id);
          return this.ticket(row);
        });
        if (options.dryRun) throw new DryRun(created);
        return created;
      });
    } catch (error) {
      if (error instanceof DryRun) return error.result;
      throw error;
    }
  }

  get(workspace: string, ref: string): TicketDetail {
    const row = this.row(workspace, ref);
    const view = this.relationView(row);
    const relations = [
      ...(view.parent ? [{ kind: 'sub_issue_of' as const, ticket: view.parent.id }] : []),
      ...view.children.map((c) => ({ kind: 'parent_of' as const, ticket: c.id })),
      ...view.blockedBy.map((c) => ({ kind: 'blocked_by' as const, ticket: c.id })),
      ...view.blocking.map((c) => ({ kind: 'blocking' as const, ticket: c.id })),
      ...view.other.map((o) => ({ kind: o.kind, ticket: o.ticket.id })),
    ];
    return { ...this.ticket(row), comments: this.comments(row.id), relations };
  }

  /** One read transaction: the rows and their count come from the same state of the file. */
  list(
    workspace: string,
    filter: TicketFilter,
    window: { offset: number; limit: number } = { offset: 0, limit: -1 },
  ): ListedTickets {
    return this.db.transaction(() => this.listInSnapshot(workspace, filter, window))();
  }

  private listInSnapshot(
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
      params.push(this.row(workspace, filter.parent).id);
    }
    if (filter.text !== undefined && filter.text.trim() !== '') {
      // Words through the full-text index, never a LIKE scan of every row.
      const has = this.searchIndex.titleOrDescriptionHas(workspace, filter.text);
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
    const rows = this.sql(`${SELECT} WHERE ${scope.sql}${rest} ORDER BY ${order} LIMIT ? OFFSET ?`).all(
      ...scope.params,
      ...params,
      window.limit,
      window.offset,
    ) as Row[];
    const tickets = rows.map((row) => this.summary(row));
    const windowEnded = window.limit < 0 || rows.length < window.limit;
    if (windowEnded && (rows.length > 0 || window.offset === 0)) {
      return { total: window.offset + rows.length, totalAtLeast: false, tickets };
    }
    // Counted no further than needed: past the window (so a caller can tell there are more) and
    // at least to TOTAL_COUNTED_UP_TO. An exact count of a large match read every one of them.
    // One more is counted, so that a match of exactly countUpTo is told apart from a larger one.
    const countUpTo = Math.max(TOTAL_COUNTED_UP_TO, window.offset + Math.max(window.limit, 0) + 1);
    const found = this.count(`${counted.sql}${rest}`, [...counted.params, ...params], countUpTo + 1);
    return found > countUpTo
      ? { total: countUpTo, totalAtLeast: true, tickets }
      : { total: found, totalAtLeast: false, tickets };
  }

  private count(condition: string, params: unknown[], upTo: number): number {
    return this.sql(`SELECT count(*) FROM (SELECT 1 FROM tickets t WHERE ${condition} LIMIT ?)`)
      .pluck()
      .get(...params, upTo) as number;
  }

  private checkVersion(row: Row, ref: string, expected: number | undefined): void {
    if (expected !== undefined && expected !== row.version) {
      throw new ToolError(
        `conflict: ${ref} is at version ${row.version}, not ${expected} — someone changed it since you read it. Read it again with get_ticket (current version ${row.version}) and reapply your change.`,
        'conflict',
      );
    }
  }

  update(actor: Actor, ref: string, changes: TicketChanges, expectedVersion?: number): Ticket {
    return this.write(() => {
      const row = this.row(actor.workspace, ref);
      this.checkVersion(row, ref, expectedVersion);
      const changed: Record<string, { from: unknown; to: unknown }> = {};
      const columns: Record<string, unknown> = {};
      const fields = [
        ['title', 'title'],
        ['description', 'description'],
        ['status', 'status'],
        ['priority', 'priority'],
      ] as const;
      for (const [key, column] of fields) {
        const value = changes[key];
        if (value === undefined || value === row[column]) continue;
        if (key === 'title' && value.trim() === '') {
          throw new ToolError('title cannot be empty: give a title or leave it out.', 'invalid_ticket');
        }
        columns[column] = value;
        changed[key] = { from: row[column], to: value };
      }
      if (changes.labels !== undefined) {
        const before = this.labels(row.id);
        const after = [...new Set(changes.labels.map((l) => l.trim()))].sort();
        if (before.join('\n') !== after.join('\n')) {
          this.setLabels(row.id, after);
          changed.labels = { from: before, to: after };
        }
      }
      const names = Object.keys(columns);
      if (names.length > 0) {
        this.sql(`UPDATE tickets SET ${names.map((n) => `${n} = ?`).join(', ')} WHERE id = ?`).run(
          ...Object.values(columns),
          row.id,
        );
      }
      if (Object.keys(changed).length > 0) {
        this.touch(row.id);
        if (changed.title || changed.description) this.searchIndex.put(row.id);
        this.event(actor, row.id, 'updated', changed);
      }
      return this.ticket(this.rowById(row.id));
    });
  }

  assign(actor: Actor, ref: string, assignee: Partial<Assignee>): Ticket {
    return this.write(() => {
      const row = this.row(actor.workspace, ref);
      if (assignee.agent && row.assignee_agent && row.assignee_agent !== assignee.agent) {
        throw new ToolError(
          `${ref} is already assigned to agent "${row.assignee_agent}": use reassign_ticket to hand it to "${assignee.agent}".`,
          'already_assigned',
        );
      }
      if (assignee.team && row.assignee_team && row.assignee_team !== assignee.team) {
        throw new ToolError(
          `${ref} is already assigned to team "${row.assignee_team}": use reassign_ticket to hand it to "${assignee.team}".`,
          'already_assigned',
        );
      }
      const agent = assignee.agent ?? row.assignee_agent;
      const team = assignee.team ?? row.assignee_team;
      return this.setAssignee(actor, row, { agent, team }, 'assigned');
    });
  }

  reassign(actor: Actor, ref: string, assignee: Assignee): Ticket {
    return this.write(() => this.setAssignee(actor, this.row(actor.workspace, ref), assignee, 'reassigned'));
  }

  private setAssignee(actor: Actor, row: Row, to: Assignee, kind: string): Ticket {
    this.sql('UPDATE tickets SET assignee_agent = ?, assignee_team = ? WHERE id = ?').run(
      to.agent,
      to.team,
      row.id,
    );
    this.touch(row.id);
    this.event(actor, row.id, kind, {
      from: { agent: row.assignee_agent, team: row.assignee_team },
      to,
    });
    return this.ticket(this.rowById(row.id));
  }

  addCollaborator(actor: Actor, ref: string, name: string): Ticket {
    return this.write(() => {
      const row = this.row(actor.workspace, ref);
      const { changes } = this.sql(
        'INSERT OR IGNORE INTO ticket_collaborators (ticket_id, name) VALUES (?, ?)',
      ).run(row.id, name.trim());
      if (changes > 0) {
        this.touch(row.id);
        this.event(actor, row.id, 'collaborator_added', { name: name.trim() });
      }
      return this.ticket(this.rowById(row.id));
    });
  }

  comment(actor: Actor, ref: string, body: string): TicketDetail {
    if (body.trim() === '') throw new ToolError('the comment is empty: write something.', 'invalid_comment');
    this.write(() => {
      const row = this.row(actor.workspace, ref);
      this.sql('INSERT INTO comments (ticket_id, author, body, created_at) VALUES (?, ?, ?, ?)').run(
        row.id,
        actor.identity,
        body,
        this.stamp(),
      );
      this.touch(row.id);
      this.searchIndex.put(row.id);
      this.event(actor, row.id, 'commented', { body });
    });
    return this.get(actor.workspace, ref);
  }

  private finish(actor: Actor, ref: string, status: Status, fields: { output?: string; error?: string }) {
    return this.write(() => {
      const row = this.row(actor.workspace, ref);
      this.sql('UPDATE tickets SET status = ?, output = COALESCE(?, output), error = ? WHERE id = ?').run(
        status,
        fields.output ?? null,
        fields.error ?? null,
        row.id,
      );
      this.touch(row.id);
      this.event(actor, row.id, status === 'done' ? 'closed' : 'failed', {
        from: row.status,
        ...fields,
      });
      return this.ticket(this.rowById(row.id));
    });
  }

  close(actor: Actor, ref: string, output?: string): Ticket {
    return this.finish(actor, ref, 'done', output === undefined ? {} : { output });
  }

  fail(actor: Actor, ref: string, error: string): Ticket {
    if (error.trim() === '') throw new ToolError('say why the ticket failed in `error`.', 'invalid_error');
    return this.finish(actor, ref, 'failed', { error });
  }

  delegate(actor: Actor, ref: string, child: NewTicket & { agent: string }): Ticket {
    return this.write(() => {
      const parent = this.row(actor.workspace, ref);
      if (TERMINAL_STATUSES.includes(parent.status)) {
        throw new ToolError(
          `${ref} is ${parent.status}: delegate from an open ticket (reopen it with update_ticket first).`,
          'closed_ticket',
        );
      }
      const depth = this.depth(parent.id) + 1;
      if (depth > this.maxDepth) {
        throw new ToolError(
          `delegation too deep: a child of ${ref} would sit ${depth} levels below its root ticket, over the cap of ${this.maxDepth}. Do the work here, or delegate from a ticket higher up.`,
          'delegation_depth',
        );
      }
      const row = this.insertTicket(
        actor,
        { ...child, assignee: { agent: child.agent, team: child.assignee?.team ?? null } },
        parent.id,
      );
      this.touch(parent.id);
      this.event(actor, parent.id, 'delegated', { child: formatRef(row.number), agent: child.agent, depth });
      return this.ticket(row);
    });
  }

  linkPr(actor: Actor, ref: string, action: 'link' | 'unlink', pr: string): Ticket {
    const value = parsePr(pr);
    return this.write(() => {
      const row = this.row(actor.workspace, ref);
      const { changes } =
        action === 'link'
          ? this.sql('INSERT OR IGNORE INTO pr_links (ticket_id, pr, created_at) VALUES (?, ?, ?)').run(
              row.id,
              value,
              this.stamp(),
            )
          : this.sql('DELETE FROM pr_links WHERE ticket_id = ? AND pr = ?').run(row.id, value);
      if (action === 'unlink' && changes === 0) {
        throw new ToolError(`${value} is not linked to ${ref}: see its prs with get_ticket.`, 'not_linked');
      }
      if (changes > 0) {
        this.touch(row.id);
        this.event(actor, row.id, action === 'link' ? 'pr_linked' : 'pr_unlinked', { pr: value });
      }
      return this.ticket(this.rowById(row.id));
    });
  }

  /** The path from `start` to `goal` following `next`, or null; used to show a refused cycle. */
  private path(start: number, goal: number, next: (id: number) => number[]): number[] | null {
    const seen = new Map<number, number | null>([[start, null]]);
    const queue = [start];
    while (queue.length > 0) {
      const id = queue.shift() as number;
      if (id === goal) {
        const chain = [id];
        let back = seen.get(id) ?? null;
        while (back !== null) {
          chain.unshift(back);
          back = seen.get(back) ?? null;
        }
        return chain;
      }
      for (const n of next(id)) {
        if (!seen.has(n)) {
          seen.set(n, id);
          queue.push(n);
        }
      }
    }
    return null;
  }

  private refs(ids: number[]): string {
    return ids.map((id) => formatRef(this.rowById(id).number)).join(' → ');
  }

  relate(
    actor: Actor,
    ref: string,
    action: 'add' | 'remove',
    kind: RelationKind,
    otherRef: string,
  ): RelationView {
    return this.write(() => {
      const self = this.row(actor.workspace, ref);
      const other = this.row(actor.workspace, otherRef);
      if (self.id === other.id) {
        throw new ToolError(
          `a ticket cannot be related to itself: name another ticket than ${ref}.`,
          'self_relation',
        );
      }
      const edge = edgeOf(kind);
      const [from, to] = edge.reversed ? [other, self] : [self, other];
      if (edge.stored === 'parent') this.relateParent(actor, action, from, to);
      else this.relateEdge(actor, action, edge.stored, from, to, kind, self, other);
      return this.relationView(this.rowById(self.id));
    });
  }

  private relateParent(actor: Actor, action: 'add' | 'remove', parent: Row, child: Row): void {
    const childRef = formatRef(child.number);
    const parentRef = formatRef(parent.number);
    if (action === 'remove') {
      if (child.parent_id !== parent.id) {
        throw new ToolError(
          `${childRef} is not a sub-issue of ${parentRef}: nothing to remove.`,
          'no_relation',
        );
      }
      this.sql('UPDATE tickets SET parent_id = NULL WHERE id = ?').run(child.id);
    } else {
      const up = (id: number) => {
        const p = this.rowById(id).parent_id;
        return p === null ? [] : [p];
      };
      const cycle = this.path(parent.id, child.id, up);
      if (cycle) {
        throw new ToolError(
          `refused: making ${childRef} a sub-issue of ${parentRef} would close a parent cycle ${this.refs([child.id, ...cycle])}. Remove a parent link first.`,
          'cycle',
        );
      }
      if (child.parent_id === parent.id) return;
      this.sql('UPDATE tickets SET parent_id = ? WHERE id = ?').run(parent.id, child.id);
    }
    for (const row of [parent, child]) this.touch(row.id);
    this.event(actor, child.id, action === 'add' ? 'relation_added' : 'relation_removed', {
      kind: 'sub_issue_of',
      ticket: parentRef,
      ...(action === 'add' && child.parent_number !== null && { replaced: formatRef(child.parent_number) }),
    });
    this.event(actor, parent.id, action === 'add' ? 'relation_added' : 'relation_removed', {
      kind: 'parent_of',
      ticket: childRef,
    });
  }

  private relateEdge(
    actor: Actor,
    action: 'add' | 'remove',
    stored: Exclude<StoredKind, 'parent'>,
    from: Row,
    to: Row,
    kind: RelationKind,
    self: Row,
    other: Row,
  ): void {
    // related_to has no direction, so either stored orientation counts as the same relation.
    const match =
      stored === 'related_to'
        ? '((from_id = ? AND to_id = ?) OR (from_id = ? AND to_id = ?)) AND kind = ?'
        : 'from_id = ? AND to_id = ? AND kind = ?';
    const params =
      stored === 'related_to' ? [from.id, to.id, to.id, from.id, stored] : [from.id, to.id, stored];
    const exists = this.sql(`SELECT 1 FROM relations WHERE ${match}`).get(...params) !== undefined;
    if (action === 'remove') {
      if (!exists) {
        throw new ToolError(
          `${formatRef(self.number)} has no ${kind} relation to ${formatRef(other.number)}: see them with list_ticket_relations.`,
          'no_relation',
        );
      }
      this.sql(`DELETE FROM relations WHERE ${match}`).run(...params);
    } else {
      if (exists) return;
      if (stored === 'blocks') {
        const blocks = (id: number) =>
          (
            this.sql("SELECT to_id FROM relations WHERE from_id = ? AND kind = 'blocks'").all(id) as {
              to_id: number;
            }[]
          ).map((r) => r.to_id);
        const cycle = this.path(to.id, from.id, blocks);
        if (cycle) {
          throw new ToolError(
            `refused: ${formatRef(from.number)} blocking ${formatRef(to.number)} would close a blocking cycle ${this.refs([from.id, ...cycle])}. Remove one of those blockers first.`,
            'cycle',
          );
        }
      }
      this.sql('INSERT INTO relations (from_id, kind, to_id, created_at) VALUES (?, ?, ?, ?)').run(
        from.id,
        stored,
        to.id,
        this.stamp(),
      );
    }
    const eventKind = action === 'add' ? 'relation_added' : 'relation_removed';
    this.touch(self.id);
    this.touch(other.id);
    this.event(actor, self.id, eventKind, { kind, ticket: formatRef(other.number) });
    this.event(actor, other.id, eventKind, {
      kind: stored === 'related_to' ? 'related_to' : kindSeenFrom(stored, other.id === from.id),
      ticket: formatRef(self.number),
    });
  }

  private relationView(row: Row): RelationView {
    const parent = row.parent_id === null ? null : this.summary(this.rowById(row.parent_id));
    const children = (this.sql(`${SELECT} WHERE t.parent_id = ? ORDER BY t.number`).all(row.id) as Row[]).map(
      (r) => this.summary(r),
    );
    const edges = this.sql(
      `SELECT from_id, kind, to_id FROM relations WHERE from_id = ? OR to_id = ? ORDER BY created_at, rowid`,
    ).all(row.id, row.id) as { from_id: number; kind: Exclude<StoredKind, 'parent'>; to_id: number }[];
    const view: RelationView = {
      ticket: formatRef(row.number),
      parent,
      children,
      blockedBy: [],
      blocking: [],
      other: [],
    };
    for (const edge of edges) {
      const fromSide = edge.from_id === row.id;
      const otherRow = this.rowById(fromSide ? edge.to_id : edge.from_id);
      const kind = kindSeenFrom(edge.kind, fromSide);
      const summary = this.summary(otherRow);
      if (kind === 'blocking') view.blocking.push(summary);
      else if (kind === 'blocked_by') view.blockedBy.push(summary);
      else view.other.push({ kind, ticket: summary });
    }
    return view;
  }

  relations(workspace: string, ref: string): RelationView {
    return this.relationView(this.row(workspace, ref));
  }

  search(workspace: string, query: string, limit: number): SearchResult {
    // Ranked on rowids and scores alone; only the hits shown are read in full.
    const { order, hits } = this.searchIndex.ranked(workspace, query, limit);
    return {
      hits: hits.map(({ id, score }) => ({
        ticket: this.summary(this.rowById(id)),
        score: order === 'newest' ? 0 : -score,
      })),
      ...(order === 'newest' && { note: NEWEST_FIRST_NOTE }),
    };
  }

  history(workspace: string, ref: string): TicketEvent[] {
    const row = this.row(workspace, ref);
    return (
      this.sql('SELECT kind, author, detail, created_at FROM events WHERE ticket_id = ? ORDER BY id').all(
        row.id,
      ) as { kind: string; author: string; detail: string; created_at: string }[]
    ).map((e) => ({
      ticket: formatRef(row.number),
      kind: e.kind,
      author: e.author,
      detail: JSON.parse(e.detail) as Record<string, unknown>,
      createdAt: e.created_at,
    }));
  }

  ready(workspace: string, assignee?: string): TicketSummary[] {
    const terminal = TERMINAL_STATUSES.map((s) => `'${s}'`).join(', ');
    const resolved = RESOLVED_STATUSES.map((s) => `'${s}'`).join(', ');
    const params: unknown[] = [workspace];
    let who = '';
    if (assignee !== undefined) {
      who = 'AND (t.assignee_agent = ? OR t.assignee_team = ?)';
      params.push(assignee, assignee);
    }
    const rows = this.sql(
      `${SELECT} WHERE t.workspace = ? AND t.status NOT IN (${terminal}) ${who}
         AND NOT EXISTS (SELECT 1 FROM relations r JOIN tickets b ON b.id = r.from_id
                         WHERE r.to_id = t.id AND r.kind = 'blocks' AND b.status NOT IN (${resolved}))
         ORDER BY t.priority, t.number`,
    ).all(...params) as Row[];
    return rows.map((row) => this.summary(row));
  }

  exportWorkspace(workspace: string): WorkspaceExport {
    const rows = this.sql(`${SELECT} WHERE t.workspace = ? ORDER BY t.number`).all(workspace) as Row[];
    const edges = this.sql(
      `SELECT f.number AS f, r.kind, t.number AS t FROM relations r
         JOIN tickets f ON f.id = r.from_id JOIN tickets t ON t.id = r.to_id
         WHERE f.workspace = ? ORDER BY r.created_at, f.number, t.number`,
    ).all(workspace) as { f: number; kind: string; t: number }[];
    return {
      format: 'toolmesh-tickets',
      version: 1,
      workspace_id: workspace,
      tickets: rows.map((row) => ({ ...this.ticket(row), comments: this.comments(row.id) })),
      relations: edges.map((e) => ({ from: formatRef(e.f), kind: e.kind, to: formatRef(e.t) })),
      events: rows.flatMap((row) => this.history(workspace, formatRef(row.number))),
    };
  }

  importWorkspace(actor: Actor, data: unknown): { imported: number } {
    const file = parseExport(data);
    return this.write(() => {
      const ids = new Map<string, number>();
      file.tickets.forEach((t, index) => {
        const number = parseRef(t.id);
        const taken = this.sql('SELECT 1 FROM tickets WHERE workspace = ? AND number = ?').get(
          actor.workspace,
          number,
        );
        if (taken) {
          throw new ToolError(
            `ticket at index ${index} (${t.id}) already exists in workspace "${actor.workspace}", so nothing was imported: import into an empty workspace.`,
            'import_conflict',
          );
        }
        const { lastInsertRowid } = this.sql(
          `INSERT INTO tickets (workspace, number, title, description, status, priority, assignee_agent,
               assignee_team, author, output, error, version, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          actor.workspace,
          number,
          t.title,
          t.description,
          t.status,
          t.priority,
          t.assignee.agent,
          t.assignee.team,
          t.author ?? actor.identity,
          t.output,
          t.error,
          t.version,
          t.createdAt,
          t.updatedAt,
        );
        const id = Number(lastInsertRowid);
        ids.set(t.id, id);
        this.setLabels(id, t.labels);
        for (const name of t.collaborators) {
          this.sql('INSERT OR IGNORE INTO ticket_collaborators VALUES (?, ?)').run(id, name);
        }
        for (const pr of t.prs) {
          this.sql('INSERT OR IGNORE INTO pr_links VALUES (?, ?, ?)').run(id, pr, t.updatedAt);
        }
        for (const c of t.comments) {
          this.sql('INSERT INTO comments (ticket_id, author, body, created_at) VALUES (?, ?, ?, ?)').run(
            id,
            c.author,
            c.body,
            c.createdAt,
          );
        }
      });
      // parseExport checked that every reference names a ticket of the file.
      const idOf = (ref: string) => ids.get(ref) as number;
      for (const t of file.tickets) {
        if (t.parent !== null)
          this.sql('UPDATE tickets SET parent_id = ? WHERE id = ?').run(idOf(t.parent), idOf(t.id));
        this.searchIndex.put(idOf(t.id));
      }
      for (const r of file.relations) {
        this.sql(
          'INSERT OR IGNORE INTO relations (from_id, kind, to_id, created_at) VALUES (?, ?, ?, ?)',
        ).run(idOf(r.from), r.kind, idOf(r.to), this.stamp());
      }
      for (const e of file.events) {
        this.sql(
          'INSERT INTO events (ticket_id, author, kind, detail, created_at) VALUES (?, ?, ?, ?, ?)',
        ).run(idOf(e.ticket), e.author, e.kind, JSON.stringify(e.detail), e.createdAt);
      }
      return { imported: file.tickets.length };
    });
  }
}
