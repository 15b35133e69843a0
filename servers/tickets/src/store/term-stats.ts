import { type SqliteDatabase, statementCache } from '@toolmesh/core';

/**
 * How many tickets of each workspace hold each indexed term, kept beside its FTS5 table.
 *
 * FTS5's bm25() counts a term's tickets itself on every query, by reading the term's whole
 * doclist: for a word in every ticket that is a read of every ticket. Kept here, the count is one
 * lookup, and a search can see that a word is in half the tickets or more, where bm25 gives it
 * no weight, and leave it out of the ranking (see SearchIndex.ranked).
 *
 * Terms are what the table's own tokenizer makes of the text: a scratch FTS5 table of the same
 * tokenizer (contentless, in the connection's temp schema) turns text into its distinct terms.
 */

export const TERM_COUNTS_TABLE = `CREATE TABLE search_terms (
  index_id INTEGER NOT NULL,
  term TEXT NOT NULL,
  docs INTEGER NOT NULL,
  PRIMARY KEY (index_id, term)
) WITHOUT ROWID`;

/** Migration: counts the terms of every existing per-workspace table from its own index. */
export function countTermsOfEveryIndex(db: SqliteDatabase): void {
  db.exec(TERM_COUNTS_TABLE);
  const ids = db.prepare('SELECT id FROM search_indexes').pluck().all() as number[];
  for (const id of ids) {
    db.exec(`CREATE VIRTUAL TABLE temp.counted_terms USING fts5vocab(main, tickets_fts_${id}, row)`);
    db.prepare(
      'INSERT INTO search_terms (index_id, term, docs) SELECT ?, term, doc FROM temp.counted_terms',
    ).run(id);
    db.exec('DROP TABLE temp.counted_terms');
  }
}

export class TermStats {
  private readonly sql: ReturnType<typeof statementCache>;

  constructor(db: SqliteDatabase) {
    this.sql = statementCache(db);
    db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS temp.scratch_text USING fts5(text, tokenize = 'porter unicode61', content = '', detail = none)`,
    );
    db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.scratch_terms USING fts5vocab(temp, scratch_text, row)');
  }

  /** Leaves the distinct terms of `text` in temp.scratch_terms. */
  private tokenize(text: string): void {
    this.sql("INSERT INTO temp.scratch_text (scratch_text) VALUES ('delete-all')").run();
    this.sql('INSERT INTO temp.scratch_text (rowid, text) VALUES (1, ?)').run(text);
  }

  /** One more ticket of the index holds each term of `text`. */
  add(indexId: number, text: string): void {
    this.tokenize(text);
    this.sql(
      `INSERT INTO search_terms (index_id, term, docs) SELECT ?, term, 1 FROM temp.scratch_terms WHERE true
         ON CONFLICT (index_id, term) DO UPDATE SET docs = docs + 1`,
    ).run(indexId);
  }

  /** One ticket fewer holds each term of `text` (its previous indexed text). */
  remove(indexId: number, text: string): void {
    this.tokenize(text);
    const terms = 'term IN (SELECT term FROM temp.scratch_terms)';
    this.sql(`UPDATE search_terms SET docs = docs - 1 WHERE index_id = ? AND ${terms}`).run(indexId);
    this.sql(`DELETE FROM search_terms WHERE index_id = ? AND docs <= 0 AND ${terms}`).run(indexId);
  }

  /** How many tickets of the index hold `word`, when the tokenizer makes one term of it. */
  ticketsWith(indexId: number, word: string): number | undefined {
    this.tokenize(word);
    const terms = this.sql('SELECT term FROM temp.scratch_terms').pluck().all() as string[];
    if (terms.length !== 1) return undefined;
    const docs = this.sql('SELECT docs FROM search_terms WHERE index_id = ? AND term = ?')
      .pluck()
      .get(indexId, terms[0]) as number | undefined;
    return docs ?? 0;
  }
}
