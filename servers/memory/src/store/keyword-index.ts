import type { SqliteDatabase } from '@toolmesh/core';
import { anyOf, queryTerms } from './keyword-query.js';

/**
 * A word in more than this share of the entries is too common to rank by once the store is
 * large: BM25 gives it little weight, yet scoring every entry it is in is what makes a search slow.
 */
const COMMON_SHARE = 0.05;
/** Below this many entries every word is kept: the store is small enough to score whole. */
const COMMON_FLOOR = 1000;

/**
 * Keyword search over the FTS5 index of memory entries: BM25 ranking (FTS5's `rank`) of entries
 * that have any of the query's words, read best first and filtered by the caller, deeper until
 * enough pass. Words found in most entries are left out of large stores' queries when rarer
 * ones remain; their document counts are cached per process.
 */
export class KeywordIndex {
  private readonly documentCounts = new Map<string, { count: number; size: number }>();

  constructor(private readonly db: SqliteDatabase) {}

  private size(): number {
    return (this.db.prepare('SELECT max(rowid) AS n FROM memories').get() as { n: number | null }).n ?? 0;
  }

  /** How many entries have the word (after the index's stemming); recounted once the store grew a tenth. */
  private documentCount(term: string, size: number): number {
    const cached = this.documentCounts.get(term);
    if (cached && size < cached.size * 1.1 + 100) return cached.count;
    const { count } = this.db
      .prepare('SELECT count(*) AS count FROM memories_fts WHERE memories_fts MATCH ?')
      .get(anyOf([term])) as { count: number };
    this.documentCounts.set(term, { count, size });
    return count;
  }

  /**
   * The MATCH expressions to read in turn until enough entries pass: any of the query's rarer
   * words; or, when every word is common, all of them together, then the rarest alone.
   */
  expressions(query: string): string[] {
    const terms = queryTerms(query);
    const size = this.size();
    const common = Math.max(COMMON_FLOOR, size * COMMON_SHARE);
    if (terms.length === 0) return [];
    if (size <= common || terms.length === 1) return [anyOf(terms)];
    const counted = terms.map((term) => ({ term, count: this.documentCount(term, size) }));
    const rare = counted.filter((entry) => entry.count <= common).map((entry) => entry.term);
    if (rare.length > 0) return [anyOf(rare)];
    const rarest = counted.reduce((best, entry) => (entry.count < best.count ? entry : best));
    return [terms.map((term) => anyOf([term])).join(' AND '), anyOf([rarest.term])];
  }

  /** Up to `limit` entry ids, best first, among those `keep` accepts; scores are positive, higher better. */
  search(
    query: string,
    limit: number,
    keep: (ids: number[]) => Set<number>,
  ): { id: number; score: number }[] {
    const ranked = this.db.prepare(
      'SELECT rowid AS id, rank FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rank LIMIT ?',
    );
    const hits = new Map<number, number>();
    for (const expression of this.expressions(query)) {
      for (let depth = limit * 2; ; depth *= 4) {
        const rows = ranked.all(expression, depth) as { id: number; rank: number }[];
        const kept = keep(rows.map((row) => row.id));
        const passing = rows.filter((row) => kept.has(row.id));
        if (passing.length + hits.size >= limit || rows.length < depth) {
          for (const row of passing) if (!hits.has(row.id)) hits.set(row.id, -row.rank);
          break;
        }
      }
      if (hits.size >= limit) break;
    }
    return [...hits].slice(0, limit).map(([id, score]) => ({ id, score }));
  }
}
