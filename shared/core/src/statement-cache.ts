import type Database from 'better-sqlite3';
import type { SqliteDatabase } from './sqlite.js';

export type Statement = Database.Statement<unknown[]>;

/**
 * `db.prepare` that compiles each SQL text once: a read or write of one row runs a handful of
 * short statements, and compiling them each time cost as much as running them. Give it only SQL
 * texts built from fixed parts (values go in parameters), so the cache stays small.
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
