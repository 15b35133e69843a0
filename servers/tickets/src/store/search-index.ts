import { type SqliteDatabase, ToolError } from '@toolmesh/core';

/**
 * Full-text search, one FTS5 table per workspace. Its own table gives each workspace its own BM25
 * term statistics, and spares every search a lookup of each match's ticket row only to drop the
 * matches of other workspaces (most of the cost of a search with many matches). Tables are named
 * by a number from `search_indexes`, never by the workspace id, so no id reaches SQL text.
 */

/** BM25 weights of the indexed columns: title, description, comments. */
const WEIGHTS = '10.0, 3.0, 1.0';

/** The current definition of a workspace's table; porter stemming, so "leak" finds "leaks". */
function createTable(db: SqliteDatabase, id: number): string {
  const table = `tickets_fts_${id}`;
  db.exec(
    `CREATE VIRTUAL TABLE ${table} USING fts5(title, description, comments, tokenize = 'porter unicode61')`,
  );
  return table;
}

/** A ticket's comments as one indexed text, oldest first. */
const COMMENTS_TEXT = `COALESCE((SELECT group_concat(body, char(10)) FROM
  (SELECT body FROM comments c WHERE c.ticket_id = t.id ORDER BY c.id)), '')`;

/**
 * Migration: from the shared `tickets_fts` (unicode61, no stemming) to one porter table per
 * workspace, filled from the tickets and comments themselves.
 */
export function splitSearchIndexByWorkspace(db: SqliteDatabase): void {
  db.exec('CREATE TABLE search_indexes (id INTEGER PRIMARY KEY, workspace TEXT NOT NULL UNIQUE)');
  const workspaces = db.prepare('SELECT DISTINCT workspace FROM tickets').pluck().all() as string[];
  for (const workspace of workspaces) {
    const id = Number(
      db.prepare('INSERT INTO search_indexes (workspace) VALUES (?)').run(workspace).lastInsertRowid,
    );
    const table = createTable(db, id);
    db.prepare(
      `INSERT INTO ${table} (rowid, title, description, comments)
       SELECT t.id, t.title, t.description, ${COMMENTS_TEXT} FROM tickets t WHERE t.workspace = ?`,
    ).run(workspace);
  }
  db.exec('DROP TABLE tickets_fts');
}

/**
 * An FTS5 expression requiring every word of `text`. Each word is quoted, so FTS5 syntax in the
 * text (NEAR, *, :, -) is searched for, never run.
 */
function matchExpression(text: string, what: 'query' | 'text'): string {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) {
    throw new ToolError(`the ${what} has no words to search for: give one or more words.`, 'invalid_query');
  }
  return words.map((w) => `"${w}"`).join(' ');
}

export class SearchIndex {
  constructor(private readonly db: SqliteDatabase) {}

  /** The workspace's table, or null while it has never had a ticket. */
  private tableOf(workspace: string): string | null {
    const id = this.db.prepare('SELECT id FROM search_indexes WHERE workspace = ?').pluck().get(workspace) as
      | number
      | undefined;
    return id === undefined ? null : `tickets_fts_${id}`;
  }

  /** Call inside the write transaction, so a rolled-back first ticket takes its table with it. */
  private tableFor(workspace: string): string {
    const existing = this.tableOf(workspace);
    if (existing !== null) return existing;
    const { lastInsertRowid } = this.db
      .prepare('INSERT INTO search_indexes (workspace) VALUES (?)')
      .run(workspace);
    return createTable(this.db, Number(lastInsertRowid));
  }

  /** (Re)indexes one ticket from its row and comments. */
  put(ticketId: number): void {
    const { workspace } = this.db.prepare('SELECT workspace FROM tickets WHERE id = ?').get(ticketId) as {
      workspace: string;
    };
    const table = this.tableFor(workspace);
    this.db.prepare(`DELETE FROM ${table} WHERE rowid = ?`).run(ticketId);
    this.db
      .prepare(
        `INSERT INTO ${table} (rowid, title, description, comments)
         SELECT t.id, t.title, t.description, ${COMMENTS_TEXT} FROM tickets t WHERE t.id = ?`,
      )
      .run(ticketId);
  }

  /** The best `limit` tickets for every word of `query`, by BM25 (lower is better), ties by age. */
  ranked(workspace: string, query: string, limit: number): { id: number; score: number }[] {
    const expression = matchExpression(query, 'query');
    const table = this.tableOf(workspace);
    if (table === null) return [];
    return this.db
      .prepare(
        `SELECT rowid AS id, bm25(${table}, ${WEIGHTS}) AS score FROM ${table}
         WHERE ${table} MATCH ? ORDER BY score, rowid LIMIT ?`,
      )
      .all(expression, limit) as { id: number; score: number }[];
  }

  /**
   * A condition on `t.id` (with its parameter) holding for the tickets whose title or description
   * has every word of `text`; null when the workspace has no ticket to match.
   */
  titleOrDescriptionHas(workspace: string, text: string): { sql: string; param: string } | null {
    const expression = matchExpression(text, 'text');
    const table = this.tableOf(workspace);
    if (table === null) return null;
    return {
      sql: `t.id IN (SELECT rowid FROM ${table} WHERE ${table} MATCH ?)`,
      param: `{title description}: (${expression})`,
    };
  }
}
