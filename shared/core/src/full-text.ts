import type { SqliteDatabase } from './sqlite.js';

/**
 * Choices shared by the servers that search an FTS5 table with BM25.
 *
 * bm25() reads each query word's whole doclist to count its documents, so a word in most of an
 * index's documents costs a read of most of the index. A server that knows its words' document
 * counts can leave such words out of the ranking (they only filter); when every word is that
 * common, no word is left to rank by, and matches are read newest first instead: FTS5 walks
 * `ORDER BY rowid DESC LIMIT n` down the doclists and stops after n, whatever their length.
 */

/** A word in fewer documents than this is cheap to score, however large a share of the index it is in. */
export const CHEAP_TO_RANK = 1000;

/** What a result says when it is in newest-first order rather than ranked. */
export const NEWEST_FIRST_NOTE = 'every word is common: newest matches first, not ranked';

/** How a query reads its index: which words rank and which only filter, and in what order matches come. */
export interface FullTextPlan {
  /** Ranked by BM25 over `ranking`; newest first when no word is left to rank by. */
  order: 'ranked' | 'newest';
  ranking: string[];
  filtering: string[];
}

/**
 * Parts `words` by their document counts (`documentsWith`; undefined, say for a word the
 * tokenizer splits, ranks) out of `documents`: a word in `commonShare` of them or more, and in
 * CHEAP_TO_RANK or more, only filters. The share is the server's: where BM25 stops weighing a
 * word (half), or where scoring it costs more than it tells.
 */
export function planFullText(
  words: readonly string[],
  documentsWith: (word: string) => number | undefined,
  documents: number,
  commonShare: number,
): FullTextPlan {
  const commonFrom = Math.max(CHEAP_TO_RANK, documents * commonShare);
  const filtering =
    documents < commonFrom ? [] : words.filter((word) => (documentsWith(word) ?? 0) >= commonFrom);
  const ranking = words.filter((word) => !filtering.includes(word));
  return { order: ranking.length === 0 ? 'newest' : 'ranked', ranking, filtering };
}

/**
 * How many rows of an FTS5 table hold each term, for a server that keeps no counts of its own:
 * counted with MATCH on first use (a read of the term's doclist, without scoring), then kept in
 * the process until the table grew by a tenth.
 */
export class CachedTermCounts {
  private readonly counts = new Map<string, { count: number; size: number }>();

  constructor(
    private readonly db: SqliteDatabase,
    private readonly table: string,
  ) {}

  /** Rows holding `term` (after the table's tokenizer), with `size` the table's current row count or top rowid. */
  documentsWith(term: string, size: number): number {
    const cached = this.counts.get(term);
    if (cached && size < cached.size * 1.1 + 100) return cached.count;
    const count = this.db
      .prepare(`SELECT count(*) FROM ${this.table} WHERE ${this.table} MATCH ?`)
      .pluck()
      .get(ftsPhrases([term])) as number;
    this.counts.set(term, { count, size });
    return count;
  }
}

/** Words as FTS5 phrases joined by `operator`: each quoted, so FTS5 syntax in a word is searched for, never run. */
export function ftsPhrases(words: readonly string[], operator: 'AND' | 'OR' = 'AND'): string {
  return words.map((word) => `"${word}"`).join(` ${operator} `);
}

/**
 * Up to `limit` rowids of `table` matching `match`, newest (highest rowid) first, below `before`
 * when given. Reads no further down the doclists than the rows it returns.
 */
export function newestMatches(
  db: SqliteDatabase,
  table: string,
  match: string,
  limit: number,
  before?: number,
): number[] {
  const below = before === undefined ? '' : 'AND rowid < CAST(? AS INTEGER)';
  return db
    .prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ${below} ORDER BY rowid DESC LIMIT ?`)
    .pluck()
    .all(match, ...(before === undefined ? [] : [before]), limit) as number[];
}
