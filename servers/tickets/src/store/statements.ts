import type { SqliteDatabase } from '@toolmesh/core';
import type Database from 'better-sqlite3';

export type Statement = Database.Statement<unknown[]>;

/**
 * `db.prepare` that compiles each SQL text once: a ticket read or write runs a handful of short
 * statements, and compiling them each time cost as much as running them. The store's SQL texts
 * are its own, built from fixed parts, so the cache stays small.
 */
export function statementCache(db: SqliteDatabase): (sql: string) => Statement {
  const compiled = new Map<string, Statement>();
  return (sql) => {
    let statement = compiled.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      compiled.set(sql, statement);
    }
    return statement;
  };
}
