import { openDatabase, type SqliteDatabase, statementCache, ToolError } from '@toolmesh/core';
import { TICKET_MIGRATIONS } from './migrations.js';
import { formatRef, notFound, parseRef } from './refs.js';
import { SearchIndex } from './search-index.js';
import type { Priority, Status } from './statuses.js';
import type { Actor } from './store.js';
import type { Comment, NewTicket, Ticket, TicketEvent, TicketSummary } from './types.js';

/** A ticket as SELECT reads it: its row, with its parent's number joined in. */
export interface Row {
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

export const SELECT = `SELECT t.*, p.number AS parent_number FROM tickets t LEFT JOIN tickets p ON p.id = t.parent_id`;

/**
 * The tickets file read and written row by row: what the store, the relation graph and
 * import/export share, so each reads a ticket, stamps a change and records an event one way.
 */
export class TicketRows {
  readonly db: SqliteDatabase;
  readonly sql: ReturnType<typeof statementCache>;
  readonly searchIndex: SearchIndex;

  constructor(
    file: string,
    private readonly now: () => Date,
  ) {
    this.db = openDatabase(file, TICKET_MIGRATIONS);
    this.sql = statementCache(this.db);
    this.searchIndex = new SearchIndex(this.db);
  }

  /** IMMEDIATE takes the write lock up front, so two processes wait on busy_timeout instead of deadlocking. */
  write<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  stamp(): string {
    return this.now().toISOString();
  }

  row(workspace: string, ref: string): Row {
    const row = this.sql(`${SELECT} WHERE t.workspace = ? AND t.number = ?`).get(workspace, parseRef(ref)) as
      | Row
      | undefined;
    if (!row) throw notFound(ref, workspace);
    return row;
  }

  rowById(id: number): Row {
    return this.sql(`${SELECT} WHERE t.id = ?`).get(id) as Row;
  }

  labels(id: number): string[] {
    return (
      this.sql('SELECT label FROM ticket_labels WHERE ticket_id = ? ORDER BY label').all(id) as {
        label: string;
      }[]
    ).map((r) => r.label);
  }

  summary(row: Row): TicketSummary {
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

  ticket(row: Row): Ticket {
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

  comments(id: number): Comment[] {
    return (
      this.sql('SELECT author, body, created_at FROM comments WHERE ticket_id = ? ORDER BY id').all(id) as {
        author: string;
        body: string;
        created_at: string;
      }[]
    ).map((r) => ({ author: r.author, body: r.body, createdAt: r.created_at }));
  }

  event(actor: Actor, id: number, kind: string, detail: Record<string, unknown>): void {
    this.sql('INSERT INTO events (ticket_id, author, kind, detail, created_at) VALUES (?, ?, ?, ?, ?)').run(
      id,
      actor.identity,
      kind,
      JSON.stringify(detail),
      this.stamp(),
    );
  }

  /** Every change bumps the version, so expected_version means "nothing changed since I read it". */
  touch(id: number): void {
    this.sql('UPDATE tickets SET version = version + 1, updated_at = ? WHERE id = ?').run(this.stamp(), id);
  }

  setLabels(id: number, labels: readonly string[]): void {
    this.sql('DELETE FROM ticket_labels WHERE ticket_id = ?').run(id);
    const insert = this.sql('INSERT OR IGNORE INTO ticket_labels (ticket_id, label) VALUES (?, ?)');
    for (const label of labels) insert.run(id, label.trim());
  }

  events(row: Row): TicketEvent[] {
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

  insert(actor: Actor, spec: NewTicket, parentId: number | null): Row {
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
}
