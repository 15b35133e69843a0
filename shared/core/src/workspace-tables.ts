import type { SqliteDatabase } from './sqlite.js';
import { type Statement, statementCache } from './statement-cache.js';

/** One workspace's own table: its number in the registry, and its name. */
export interface WorkspaceTable {
  id: number;
  name: string;
}

/**
 * One table per workspace (an FTS5 index, say), so that nothing one workspace holds weighs on
 * another's results: BM25's document counts and lengths are each workspace's own. Tables are
 * named `<prefix><n>` by a number from the registry table, never by the workspace id, so no id
 * reaches SQL text. The registry also counts each table's rows, an O(1) size for planning
 * queries, kept exact by counting in the transaction that writes the row.
 */
export class WorkspaceTables {
  private readonly sql: (sql: string) => Statement;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly options: {
      /** The registry: `CREATE TABLE <registry> (id INTEGER PRIMARY KEY, workspace TEXT NOT NULL UNIQUE, rows INTEGER NOT NULL DEFAULT 0)`. */
      registry: string;
      prefix: string;
      /** Creates the empty table `name`. */
      create: (db: SqliteDatabase, name: string) => void;
    },
  ) {
    this.sql = statementCache(db);
  }

  /** The registry's definition, for the migration that introduces it. */
  static registrySql(registry: string): string {
    return `CREATE TABLE ${registry} (id INTEGER PRIMARY KEY, workspace TEXT NOT NULL UNIQUE, rows INTEGER NOT NULL DEFAULT 0)`;
  }

  private nameOf(id: number): string {
    return `${this.options.prefix}${id}`;
  }

  /** The workspace's table, or null while it has never had a row. */
  of(workspace: string): WorkspaceTable | null {
    const id = this.sql(`SELECT id FROM ${this.options.registry} WHERE workspace = ?`)
      .pluck()
      .get(workspace) as number | undefined;
    return id === undefined ? null : { id, name: this.nameOf(id) };
  }

  /** The workspace's table, created when missing: call inside the write transaction, so a rollback takes it back. */
  for(workspace: string): WorkspaceTable {
    const existing = this.of(workspace);
    if (existing) return existing;
    const id = Number(
      this.sql(`INSERT INTO ${this.options.registry} (workspace) VALUES (?)`).run(workspace).lastInsertRowid,
    );
    const table = { id, name: this.nameOf(id) };
    this.options.create(this.db, table.name);
    return table;
  }

  /** Counts rows added to (or, negative, removed from) a table, in the transaction that writes them. */
  counted(table: WorkspaceTable, change: number): void {
    this.sql(`UPDATE ${this.options.registry} SET rows = rows + ? WHERE id = ?`).run(change, table.id);
  }

  /** The rows counted in a table. */
  rows(table: WorkspaceTable): number {
    return this.sql(`SELECT rows FROM ${this.options.registry} WHERE id = ?`).pluck().get(table.id) as number;
  }
}
