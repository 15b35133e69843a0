import { NEWEST_FIRST_NOTE, type SqliteDatabase, ToolError } from '@toolmesh/core';
import { exportWorkspace, importWorkspace } from './import-export.js';
import { formatRef, parsePr } from './refs.js';
import { RelationGraph } from './relation-graph.js';
import type { RelationKind } from './relations.js';
import { type Status, TERMINAL_STATUSES } from './statuses.js';
import type { Actor, TicketStore } from './store.js';
import { listTickets, readyTickets } from './ticket-queries.js';
import { type Row, TicketRows } from './ticket-rows.js';
import type {
  Assignee,
  ListedTickets,
  NewTicket,
  RelationView,
  SearchResult,
  Ticket,
  TicketChanges,
  TicketDetail,
  TicketEvent,
  TicketFilter,
  TicketSummary,
  WorkspaceExport,
} from './types.js';

export const DEFAULT_MAX_DELEGATION_DEPTH = 5;

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
  private readonly rows: TicketRows;
  private readonly graph: RelationGraph;
  private readonly maxDepth: number;

  constructor(file: string, options: SqliteTicketStoreOptions = {}) {
    this.rows = new TicketRows(file, options.now ?? (() => new Date()));
    this.db = this.rows.db;
    this.graph = new RelationGraph(this.rows);
    this.maxDepth = options.maxDelegationDepth ?? DEFAULT_MAX_DELEGATION_DEPTH;
  }

  shutdown(): void {
    if (this.db.open) this.db.close();
  }

  create(actor: Actor, tickets: readonly NewTicket[], options: { dryRun?: boolean } = {}): Ticket[] {
    try {
      return this.rows.write(() => {
        const created = tickets.map((spec) => {
          const parent = spec.parent === undefined ? null : this.rows.row(actor.workspace, spec.parent);
          const row = this.rows.insert(actor, spec, parent?.id ?? null);
          if (parent) this.rows.touch(parent.id);
          return this.rows.ticket(row);
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
    const row = this.rows.row(workspace, ref);
    const view = this.graph.view(row);
    const relations = [
      ...(view.parent ? [{ kind: 'sub_issue_of' as const, ticket: view.parent.id }] : []),
      ...view.children.map((c) => ({ kind: 'parent_of' as const, ticket: c.id })),
      ...view.blockedBy.map((c) => ({ kind: 'blocked_by' as const, ticket: c.id })),
      ...view.blocking.map((c) => ({ kind: 'blocking' as const, ticket: c.id })),
      ...view.other.map((o) => ({ kind: o.kind, ticket: o.ticket.id })),
    ];
    return { ...this.rows.ticket(row), comments: this.rows.comments(row.id), relations };
  }

  list(
    workspace: string,
    filter: TicketFilter,
    window: { offset: number; limit: number } = { offset: 0, limit: -1 },
  ): ListedTickets {
    return listTickets(this.rows, workspace, filter, window);
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
    return this.rows.write(() => {
      const row = this.rows.row(actor.workspace, ref);
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
        const before = this.rows.labels(row.id);
        const after = [...new Set(changes.labels.map((l) => l.trim()))].sort();
        if (before.join('\n') !== after.join('\n')) {
          this.rows.setLabels(row.id, after);
          changed.labels = { from: before, to: after };
        }
      }
      const names = Object.keys(columns);
      if (names.length > 0) {
        this.rows
          .sql(`UPDATE tickets SET ${names.map((n) => `${n} = ?`).join(', ')} WHERE id = ?`)
          .run(...Object.values(columns), row.id);
      }
      if (Object.keys(changed).length > 0) {
        this.rows.touch(row.id);
        if (changed.title || changed.description) this.rows.searchIndex.put(row.id);
        this.rows.event(actor, row.id, 'updated', changed);
      }
      return this.rows.ticket(this.rows.rowById(row.id));
    });
  }

  assign(actor: Actor, ref: string, assignee: Partial<Assignee>): Ticket {
    return this.rows.write(() => {
      const row = this.rows.row(actor.workspace, ref);
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
    return this.rows.write(() =>
      this.setAssignee(actor, this.rows.row(actor.workspace, ref), assignee, 'reassigned'),
    );
  }

  private setAssignee(actor: Actor, row: Row, to: Assignee, kind: string): Ticket {
    this.rows
      .sql('UPDATE tickets SET assignee_agent = ?, assignee_team = ? WHERE id = ?')
      .run(to.agent, to.team, row.id);
    this.rows.touch(row.id);
    this.rows.event(actor, row.id, kind, {
      from: { agent: row.assignee_agent, team: row.assignee_team },
      to,
    });
    return this.rows.ticket(this.rows.rowById(row.id));
  }

  addCollaborator(actor: Actor, ref: string, name: string): Ticket {
    return this.rows.write(() => {
      const row = this.rows.row(actor.workspace, ref);
      const { changes } = this.rows
        .sql('INSERT OR IGNORE INTO ticket_collaborators (ticket_id, name) VALUES (?, ?)')
        .run(row.id, name.trim());
      if (changes > 0) {
        this.rows.touch(row.id);
        this.rows.event(actor, row.id, 'collaborator_added', { name: name.trim() });
      }
      return this.rows.ticket(this.rows.rowById(row.id));
    });
  }

  comment(actor: Actor, ref: string, body: string): TicketDetail {
    if (body.trim() === '') throw new ToolError('the comment is empty: write something.', 'invalid_comment');
    this.rows.write(() => {
      const row = this.rows.row(actor.workspace, ref);
      this.rows
        .sql('INSERT INTO comments (ticket_id, author, body, created_at) VALUES (?, ?, ?, ?)')
        .run(row.id, actor.identity, body, this.rows.stamp());
      this.rows.touch(row.id);
      this.rows.searchIndex.put(row.id);
      this.rows.event(actor, row.id, 'commented', { body });
    });
    return this.get(actor.workspace, ref);
  }

  private finish(actor: Actor, ref: string, status: Status, fields: { output?: string; error?: string }) {
    return this.rows.write(() => {
      const row = this.rows.row(actor.workspace, ref);
      this.rows
        .sql('UPDATE tickets SET status = ?, output = COALESCE(?, output), error = ? WHERE id = ?')
        .run(status, fields.output ?? null, fields.error ?? null, row.id);
      this.rows.touch(row.id);
      this.rows.event(actor, row.id, status === 'done' ? 'closed' : 'failed', {
        from: row.status,
        ...fields,
      });
      return this.rows.ticket(this.rows.rowById(row.id));
    });
  }

  close(actor: Actor, ref: string, output?: string): Ticket {
    return this.finish(actor, ref, 'done', output === undefined ? {} : { output });
  }

  fail(actor: Actor, ref: string, error: string): Ticket {
    if (error.trim() === '') throw new ToolError('say why the ticket failed in `error`.', 'invalid_error');
    return this.finish(actor, ref, 'failed', { error });
  }

  private depth(id: number): number {
    let depth = 0;
    let current = this.rows.rowById(id).parent_id;
    while (current !== null) {
      depth++;
      current = this.rows.rowById(current).parent_id;
    }
    return depth;
  }

  delegate(actor: Actor, ref: string, child: NewTicket & { agent: string }): Ticket {
    return this.rows.write(() => {
      const parent = this.rows.row(actor.workspace, ref);
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
      const row = this.rows.insert(
        actor,
        { ...child, assignee: { agent: child.agent, team: child.assignee?.team ?? null } },
        parent.id,
      );
      this.rows.touch(parent.id);
      this.rows.event(actor, parent.id, 'delegated', {
        child: formatRef(row.number),
        agent: child.agent,
        depth,
      });
      return this.rows.ticket(row);
    });
  }

  linkPr(actor: Actor, ref: string, action: 'link' | 'unlink', pr: string): Ticket {
    const value = parsePr(pr);
    return this.rows.write(() => {
      const row = this.rows.row(actor.workspace, ref);
      const { changes } =
        action === 'link'
          ? this.rows
              .sql('INSERT OR IGNORE INTO pr_links (ticket_id, pr, created_at) VALUES (?, ?, ?)')
              .run(row.id, value, this.rows.stamp())
          : this.rows.sql('DELETE FROM pr_links WHERE ticket_id = ? AND pr = ?').run(row.id, value);
      if (action === 'unlink' && changes === 0) {
        throw new ToolError(`${value} is not linked to ${ref}: see its prs with get_ticket.`, 'not_linked');
      }
      if (changes > 0) {
        this.rows.touch(row.id);
        this.rows.event(actor, row.id, action === 'link' ? 'pr_linked' : 'pr_unlinked', { pr: value });
      }
      return this.rows.ticket(this.rows.rowById(row.id));
    });
  }

  relate(
    actor: Actor,
    ref: string,
    action: 'add' | 'remove',
    kind: RelationKind,
    otherRef: string,
  ): RelationView {
    return this.graph.relate(actor, ref, action, kind, otherRef);
  }

  relations(workspace: string, ref: string): RelationView {
    return this.graph.view(this.rows.row(workspace, ref));
  }

  search(workspace: string, query: string, limit: number): SearchResult {
    // Ranked on rowids and scores alone; only the hits shown are read in full.
    const { order, hits } = this.rows.searchIndex.ranked(workspace, query, limit);
    return {
      hits: hits.map(({ id, score }) => ({
        ticket: this.rows.summary(this.rows.rowById(id)),
        score: order === 'newest' ? 0 : -score,
      })),
      ...(order === 'newest' && { note: NEWEST_FIRST_NOTE }),
    };
  }

  history(workspace: string, ref: string): TicketEvent[] {
    return this.rows.events(this.rows.row(workspace, ref));
  }

  ready(workspace: string, assignee?: string): TicketSummary[] {
    return readyTickets(this.rows, workspace, assignee);
  }

  exportWorkspace(workspace: string): WorkspaceExport {
    return exportWorkspace(this.rows, workspace);
  }

  importWorkspace(actor: Actor, data: unknown): { imported: number } {
    return importWorkspace(this.rows, actor, data);
  }
}
