import {
  CachedTermCounts,
  ftsPhrases,
  newestMatches,
  planFullText,
  type SqliteDatabase,
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

/**
 * Keyword search over the FTS5 index of memory entries: BM25 ranking (FTS5's `rank`) of entries
 * that have any of the query's words, read best first and filtered by the caller, deeper until
 * enough pass. Words found in most entries are left out of large stores' queries when rarer
 * ones remain; their document counts are cached per process (CachedTermCounts). When none
 * remains, entries with every word come newest first, then those with any of them.
 */
export class KeywordIndex {
  private readonly termCounts: CachedTermCounts;

  constructor(private readonly db: SqliteDatabase) {
    this.termCounts = new CachedTermCounts(db, 'memories_fts');
  }

  private size(): number {
    return (this.db.prepare('SELECT max(rowid) AS n FROM memories').get() as { n: number | null }).n ?? 0;
  }

  /** Up to `limit` entry ids among those `keep` accepts; scores are positive, higher better (0 when newest first). */
  search(query: string, limit: number, keep: (ids: number[]) => Set<number>): KeywordHits {
    const terms = queryTerms(query);
    if (terms.length === 0) return { order: 'ranked', hits: [] };
    const size = this.size();
    const plan = planFullText(terms, (term) => this.termCounts.documentsWith(term, size), size, COMMON_SHARE);
    if (plan.order === 'newest') {
      const expressions = [ftsPhrases(terms, 'AND'), ...(terms.length > 1 ? [ftsPhrases(terms, 'OR')] : [])];
      return { order: 'newest', hits: this.newest(expressions, limit, keep) };
    }
    return { order: 'ranked', hits: this.ranked(ftsPhrases(plan.ranking, 'OR'), limit, keep) };
  }

  /** The best-ranked entries `keep` accepts, read deeper (from the top) until `limit` pass. */
  private ranked(
    expression: string,
    limit: number,
    keep: (ids: number[]) => Set<number>,
  ): { id: number; score: number }[] {
    const ranked = this.db.prepare(
      'SELECT rowid AS id, rank FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rank LIMIT ?',
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
    expressions: string[],
    limit: number,
    keep: (ids: number[]) => Set<number>,
  ): { id: number; score: number }[] {
    const hits = new Set<number>();
    for (const expression of expressions) {
      let before: number | undefined;
      for (let batch = limit * 2; hits.size < limit; batch *= 4) {
        const ids = newestMatches(this.db, 'memories_fts', expression, batch, before);
        const kept = keep(ids);
        for (const id of ids) if (kept.has(id) && hits.size < limit) hits.add(id);
        if (ids.length < batch) break;
        before = ids[ids.length - 1];
      }
    }
    return [...hits].map((id) => ({ id, score: 0 }));
  }
}
