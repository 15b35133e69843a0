import {
  CachedTermCounts,
  ftsPhrases,
  newestMatches,
  planFullText,
  type SqliteDatabase,
  type WorkspaceTable,
  WorkspaceTables,
} from '@toolmesh/core';
import { queryTerms } from './keyword-query.js';

/**
 * A word in this share of the entries or more (and in CHEAP_TO_RANK of them) is too common to
 * rank by: BM25 gives it little weight, yet scoring every entry it is in is what makes a search slow.
 */
const COMMON_SHARE = 0.05;

/** Hits of a keyword search: BM25-ranked, or newest first when every query word is common. */
export interface KeywordHits {
  order: 'ranked' | 'newest';
  hits: { id: number; score: number }[];
}

/** Each workspace's FTS5 index of its entries' bodies (porter stemming, so "deploy" finds "deploys"). */
export function keywordTables(db: SqliteDatabase): WorkspaceTables {
  return new WorkspaceTables(db, {
    registry: 'keyword_indexes',
    prefix: 'memories_fts_',
    create: (target, name) =>
      target.exec(
        `CREATE VIRTUAL TABLE ${name} USING fts5(body, content = 'memories', content_rowid = 'id', tokenize = 'porter unicode61')`,
      ),
  });
}

/**
 * Migration: from one FTS5 index shared by every workspace, whose BM25 statistics mixed the
 * workspaces' words, to one per workspace, filled from the entries themselves.
 */
export function splitKeywordIndexByWorkspace(db: SqliteDatabase): void {
  db.exec(WorkspaceTables.registrySql('keyword_indexes'));
  const tables = keywordTables(db);
  const workspaces = db.prepare('SELECT DISTINCT workspace FROM memories').pluck().all() as string[];
  for (const workspace of workspaces) {
    const table = tables.for(workspace);
    const filled = db
      .prepare(`INSERT INTO ${table.name} (rowid, body) SELECT id, body FROM memories WHERE workspace = ?`)
      .run(workspace);
    tables.counted(table, filled.changes);
  }
  db.exec('DROP TABLE memories_fts');
}

/**
 * Keyword search over a workspace's FTS5 index of memory entries: BM25 ranking (FTS5's `rank`)
 * of entries that have any of the query's words, read best first and filtered by the caller,
 * deeper until enough pass. Words found in most entries are left out of large indexes' queries
 * when rarer ones remain; their document counts are cached per process (CachedTermCounts). When
 * none remains, entries with every word come newest first, then those with any of them.
 */
export class KeywordIndex {
  private readonly tables: WorkspaceTables;
  private readonly termCounts = new Map<number, CachedTermCounts>();

  constructor(private readonly db: SqliteDatabase) {
    this.tables = keywordTables(db);
  }

  /** Indexes a new entry: call in the transaction that stores it. */
  add(workspace: string, id: number, body: string): void {
    const table = this.tables.for(workspace);
    this.db.prepare(`INSERT INTO ${table.name} (rowid, body) VALUES (?, ?)`).run(id, body);
    this.tables.counted(table, 1);
  }

  private termCountsOf(table: WorkspaceTable): CachedTermCounts {
    let counts = this.termCounts.get(table.id);
    if (!counts) {
      counts = new CachedTermCounts(this.db, table.name);
      this.termCounts.set(table.id, counts);
    }
    return counts;
  }

  /** Up to `limit` entry ids among those `keep` accepts; scores are positive, higher better (0 when newest first). */
  search(workspace: string, query: string, limit: number, keep: (ids: number[]) => Set<number>): KeywordHits {
    const terms = queryTerms(query);
    const table = this.tables.of(workspace);
    if (terms.length === 0 || !table) return { order: 'ranked', hits: [] };
    const size = this.tables.rows(table);
    const counts = this.termCountsOf(table);
    const plan = planFullText(terms, (term) => counts.documentsWith(term, size), size, COMMON_SHARE);
    if (plan.order === 'newest') {
      const expressions = [ftsPhrases(terms, 'AND'), ...(terms.length > 1 ? [ftsPhrases(terms, 'OR')] : [])];
      return { order: 'newest', hits: this.newest(table.name, expressions, limit, keep) };
    }
    return { order: 'ranked', hits: this.ranked(table.name, ftsPhrases(plan.ranking, 'OR'), limit, keep) };
  }

  /** The best-ranked entries `keep` accepts, read deeper (from the top) until `limit` pass. */
  private ranked(
    table: string,
    expression: string,
    limit: number,
    keep: (ids: number[]) => Set<number>,
  ): { id: number; score: number }[] {
    const ranked = this.db.prepare(
      `SELECT rowid AS id, rank FROM ${table} WHERE ${table} MATCH ? ORDER BY rank LIMIT ?`,
    );
    for (let depth = limit * 2; ; depth *= 4) {
      const rows = ranked.all(expression, depth) as { id: number; rank: number }[];
      const kept = keep(rows.map((row) => row.id));
      const passing = rows.filter((row) => kept.has(row.id));
      if (passing.length >= limit || rows.length < depth) {
        return passing.slice(0, limit).map((row) => ({ id: row.id, score: -row.rank }));
      }
    }
  }

  /** The newest entries `keep` accepts of each expression in turn, each read in growing batches. */
  private newest(
    table: string,
    expressions: string[],
    limit: number,
    keep: (ids: number[]) => Set<number>,
  ): { id: number; score: number }[] {
    const hits = new Set<number>();
    for (const expression of expressions) {
      let before: number | undefined;
      for (let batch = limit * 2; hits.size < limit; batch *= 4) {
        const ids = newestMatches(this.db, table, expression, batch, before);
        const kept = keep(ids);
        for (const id of ids) if (kept.has(id) && hits.size < limit) hits.add(id);
        if (ids.length < batch) break;
        before = ids[ids.length - 1];
      }
    }
    return [...hits].map((id) => ({ id, score: 0 }));
  }
}
