import type Database from 'better-sqlite3';
import type { SqliteDatabase } from './sqlite.js';

export type Statement = Database.Statement<unknown[]>;

/** Enough for every fixed statement of a store and the common shapes of its filtered queries. */
const KEPT_STATEMENTS = 256;

/**
 * `db.prepare` that compiles each SQL text once: a read or write of one row runs a handful of
 * short statements, and compiling them each time cost as much as running them. Texts that vary
 * with a request's shape (an `IN (?, ?, …)` per filter value, a table per workspace) would grow
 * the cache without end in a long-running server, so it keeps the `limit` most recently used.
 */
export function statementCache(db: SqliteDatabase, limit = KEPT_STATEMENTS): (sql: string) => Statement {
  const compiled = new Map<string, Statement>();
  return (sql) => {
    let statement = compiled.get(sql);
    if (statement) {
      compiled.delete(sql);
    } else {
      statement = db.prepare(sql);
      if (compiled.size >= limit) compiled.delete(compiled.keys().next().value as string);
    }
    compiled.set(sql, statement);
    return statement;
  };
}
