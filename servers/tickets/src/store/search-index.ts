import {
  type FullTextPlan,
  ftsPhrases,
  newestMatches,
  planFullText,
  type SqliteDatabase,
  type Statement,
  statementCache,
  ToolError,
  WorkspaceTables,
} from '@toolmesh/core';
import { TermStats } from './term-stats.js';

/**
 * Full-text search, one FTS5 table per workspace. Its own table gives each workspace its own BM25
 * term statistics, and spares every search a lookup of each match's ticket row only to drop the
 * matches of other workspaces (most of the cost of a search with many matches). Tables are named
 * by a number from `search_indexes`, never by the workspace id, so no id reaches SQL text.
 */

/** BM25 weights of the indexed columns: title, description, comments. */
const WEIGHTS = '10.0, 3.0, 1.0';

/** Each workspace's table; porter stemming, so "leak" finds "leaks". */
function searchTables(db: SqliteDatabase): WorkspaceTables {
  return new WorkspaceTables(db, {
    registry: 'search_indexes',
    prefix: 'tickets_fts_',
    create: (target, name) =>
      target.exec(
        `CREATE VIRTUAL TABLE ${name} USING fts5(title, description, comments, tokenize = 'porter unicode61')`,
      ),
  });
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
  const tables = searchTables(db);
  const workspaces = db.prepare('SELECT DISTINCT workspace FROM tickets').pluck().all() as string[];
  for (const workspace of workspaces) {
    const table = tables.for(workspace);
    db.prepare(
      `INSERT INTO ${table.name} (rowid, title, description, comments)
       SELECT t.id, t.title, t.description, ${COMMENTS_TEXT} FROM tickets t WHERE t.workspace = ?`,
    ).run(workspace);
  }
  db.exec('DROP TABLE tickets_fts');
}

/** Migration: each workspace's ticket count kept in `search_indexes`, where a search reads it at no cost. */
export function countIndexedTickets(db: SqliteDatabase): void {
  db.exec('ALTER TABLE search_indexes ADD COLUMN rows INTEGER NOT NULL DEFAULT 0');
  const ids = db.prepare('SELECT id FROM search_indexes').pluck().all() as number[];
  for (const id of ids) {
    db.prepare(
      `UPDATE search_indexes SET rows = (SELECT count(*) FROM tickets_fts_${id}_docsize) WHERE id = ?`,
    ).run(id);
  }
}

/** The words of `text`, each of which a match must hold; FTS5 syntax in it is never run. */
function wordsOf(text: string, what: 'query' | 'text'): string[] {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) {
    throw new ToolError(`the ${what} has no words to search for: give one or more words.`, 'invalid_query');
  }
  return words;
}

/** A ticket's indexed text as one string, for counting its terms. */
function indexedText(row: { title: string; description: string; comments: string }): string {
  return `${row.title}\n${row.description}\n${row.comments}`;
}

/** Words BM25 gives no weight: in half a workspace's tickets or more, its IDF is floored to 1e-6. */
const WEIGHTLESS_SHARE = 0.5;

export class SearchIndex {
  private readonly terms: TermStats;
  private readonly sql: (sql: string) => Statement;
  private readonly tables: WorkspaceTables;

  constructor(private readonly db: SqliteDatabase) {
    this.terms = new TermStats(db);
    this.sql = statementCache(db);
    this.tables = searchTables(db);
  }

  /** (Re)indexes one ticket from its row and comments, and keeps the term counts in step. */
  put(ticketId: number): void {
    const ticket = this.sql(
      `SELECT t.workspace, t.title, t.description, ${COMMENTS_TEXT} AS comments FROM tickets t WHERE t.id = ?`,
    ).get(ticketId) as { workspace: string; title: string; description: string; comments: string };
    const index = this.tables.for(ticket.workspace);
    const table = index.name;
    const previous = this.sql(`SELECT title, description, comments FROM ${table} WHERE rowid = ?`).get(
      ticketId,
    ) as { title: string; description: string; comments: string } | undefined;
    if (previous) {
      this.terms.remove(index.id, indexedText(previous));
      this.sql(`DELETE FROM ${table} WHERE rowid = ?`).run(ticketId);
    } else {
      this.tables.counted(index, 1);
    }
    this.sql(`INSERT INTO ${table} (rowid, title, description, comments) VALUES (?, ?, ?, ?)`).run(
      ticketId,
      ticket.title,
      ticket.description,
      ticket.comments,
    );
    this.terms.add(index.id, indexedText(ticket));
  }

  /**
   * The best `limit` tickets for every word of `query`, by BM25 (lower is better), ties by age.
   *
   * A word in half the workspace's tickets or more gets no weight from bm25 (its IDF is floored
   * to 1e-6), yet bm25 reads its whole doclist to find that out. Such words only filter: the
   * others rank, and each ranked ticket, best first, is kept if it also holds them. Scores then
   * differ from ranking with every word by those words' 1e-6-weighted share alone. When every
   * word is that common, nothing is left to rank by: the newest matches come first (score 0).
   */
  ranked(
    workspace: string,
    query: string,
    limit: number,
  ): { order: 'ranked' | 'newest'; hits: { id: number; score: number }[] } {
    const words = wordsOf(query, 'query');
    const index = this.tables.of(workspace);
    if (index === null) return { order: 'ranked', hits: [] };
    const table = index.name;
    const tickets = this.tables.rows(index);
    const plan = planFullText(
      words,
      (word) => this.terms.ticketsWith(index.id, word),
      tickets,
      WEIGHTLESS_SHARE,
    );
    if (plan.order === 'newest') {
      const ids = newestMatches(this.db, table, ftsPhrases(words), limit);
      return { order: 'newest', hits: ids.map((id) => ({ id, score: 0 })) };
    }
    const ranking = this.sql(
      `SELECT rowid AS id, bm25(${table}, ${WEIGHTS}) AS score FROM ${table}
       WHERE ${table} MATCH ? ORDER BY score, rowid LIMIT ? OFFSET ?`,
    );
    if (plan.filtering.length === 0) {
      return {
        order: 'ranked',
        hits: ranking.all(ftsPhrases(words), limit, 0) as { id: number; score: number }[],
      };
    }
    return { order: 'ranked', hits: this.rankedHolding(table, ranking, plan, limit) };
  }

  /**
   * The best `limit` tickets by the ranking words that also hold the filtering words. A LIMIT
   * lets SQLite keep only the best rows while bm25 scores every match, where an unbounded read
   * sorted them all. The best `limit` are checked one by one, which is all a query needs when
   * its common words are in nearly every ticket; past them, the tickets holding every word are
   * read once, and the ranking after the first `limit` is read in full and kept to those.
   */
  private rankedHolding(
    table: string,
    ranking: Statement,
    plan: FullTextPlan,
    limit: number,
  ): { id: number; score: number }[] {
    // The best rows and the rest are two reads: a write between them must not shift the rows.
    return this.db.transaction(() => {
      // CAST: a JS number binds as REAL, and FTS5 drops a REAL rowid constraint beside MATCH
      // (every match would pass).
      const holds = this.sql(`SELECT 1 FROM ${table} WHERE ${table} MATCH ? AND rowid = CAST(? AS INTEGER)`);
      const filter = ftsPhrases(plan.filtering);
      const best = ranking.all(ftsPhrases(plan.ranking), limit, 0) as { id: number; score: number }[];
      const hits = best.filter((hit) => holds.get(filter, hit.id) !== undefined);
      if (hits.length === limit || best.length < limit) return hits;
      const holdingAll = new Set(
        this.sql(`SELECT rowid FROM ${table} WHERE ${table} MATCH ?`)
          .pluck()
          .all(ftsPhrases([...plan.ranking, ...plan.filtering])) as number[],
      );
      const rest = ranking.iterate(ftsPhrases(plan.ranking), -1, limit) as Iterable<{
        id: number;
        score: number;
      }>;
      for (const hit of rest) {
        if (!holdingAll.has(hit.id)) continue;
        hits.push(hit);
        if (hits.length === limit) break;
      }
      return hits;
    })();
  }

  /**
   * A condition on `t.id` (with its parameter) holding for the tickets whose title or description
   * has every word of `text`; null when the workspace has no ticket to match.
   */
  titleOrDescriptionHas(workspace: string, text: string): { sql: string; param: string } | null {
    const words = wordsOf(text, 'text');
    const index = this.tables.of(workspace);
    if (index === null) return null;
    const table = index.name;
    return {
      sql: `t.id IN (SELECT rowid FROM ${table} WHERE ${table} MATCH ?)`,
      param: `{title description}: (${ftsPhrases(words)})`,
    };
  }
}
