import { ToolError } from '@toolmesh/core';
import { parseExport } from './import-format.js';
import { formatRef, parseRef } from './refs.js';
import type { Actor } from './store.js';
import { type Row, SELECT, type TicketRows } from './ticket-rows.js';
import type { WorkspaceExport } from './types.js';

/** A workspace whole, as a file another store can import. */
export function exportWorkspace(from: TicketRows, workspace: string): WorkspaceExport {
  const rows = from.sql(`${SELECT} WHERE t.workspace = ? ORDER BY t.number`).all(workspace) as Row[];
  const edges = from
    .sql(
      `SELECT f.number AS f, r.kind, t.number AS t FROM relations r
       JOIN tickets f ON f.id = r.from_id JOIN tickets t ON t.id = r.to_id
       WHERE f.workspace = ? ORDER BY r.created_at, f.number, t.number`,
    )
    .all(workspace) as { f: number; kind: string; t: number }[];
  return {
    format: 'toolmesh-tickets',
    version: 1,
    workspace_id: workspace,
    tickets: rows.map((row) => ({ ...from.ticket(row), comments: from.comments(row.id) })),
    relations: edges.map((e) => ({ from: formatRef(e.f), kind: e.kind, to: formatRef(e.t) })),
    events: rows.flatMap((row) => from.events(row)),
  };
}

/** Writes an export into the actor's workspace in one transaction: all of it, or nothing. */
export function importWorkspace(into: TicketRows, actor: Actor, data: unknown): { imported: number } {
  const file = parseExport(data);
  return into.write(() => {
    const ids = new Map<string, number>();
    file.tickets.forEach((t, index) => {
      const number = parseRef(t.id);
      const taken = into
        .sql('SELECT 1 FROM tickets WHERE workspace = ? AND number = ?')
        .get(actor.workspace, number);
      if (taken) {
        throw new ToolError(
          `ticket at index ${index} (${t.id}) already exists in workspace "${actor.workspace}", so nothing was imported: import into an empty workspace.`,
          'import_conflict',
        );
      }
      const { lastInsertRowid } = into
        .sql(
          `INSERT INTO tickets (workspace, number, title, description, status, priority, assignee_agent,
             assignee_team, author, output, error, version, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
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
      into.setLabels(id, t.labels);
      for (const name of t.collaborators) {
        into.sql('INSERT OR IGNORE INTO ticket_collaborators VALUES (?, ?)').run(id, name);
      }
      for (const pr of t.prs) {
        into.sql('INSERT OR IGNORE INTO pr_links VALUES (?, ?, ?)').run(id, pr, t.updatedAt);
      }
      for (const c of t.comments) {
        into
          .sql('INSERT INTO comments (ticket_id, author, body, created_at) VALUES (?, ?, ?, ?)')
          .run(id, c.author, c.body, c.createdAt);
      }
    });
    // parseExport checked that every reference names a ticket of the file.
    const idOf = (ref: string) => ids.get(ref) as number;
    for (const t of file.tickets) {
      if (t.parent !== null)
        into.sql('UPDATE tickets SET parent_id = ? WHERE id = ?').run(idOf(t.parent), idOf(t.id));
      into.searchIndex.put(idOf(t.id));
    }
    for (const r of file.relations) {
      into
        .sql('INSERT OR IGNORE INTO relations (from_id, kind, to_id, created_at) VALUES (?, ?, ?, ?)')
        .run(idOf(r.from), r.kind, idOf(r.to), into.stamp());
    }
    for (const e of file.events) {
      into
        .sql('INSERT INTO events (ticket_id, author, kind, detail, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(idOf(e.ticket), e.author, e.kind, JSON.stringify(e.detail), e.createdAt);
    }
    return { imported: file.tickets.length };
  });
}
