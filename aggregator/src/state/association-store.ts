import path from 'node:path';
import { errorMessage, type Logger, openDatabase, type SqliteDatabase } from '@toolmesh/core';
import type { Association } from '../discovery/learned-associations.js';
import { SqliteState } from './sqlite-state.js';
import type { AggregatorState } from './state.js';

/** Where the learned links of discovery are kept between runs. */
export interface AssociationStore {
  all(): Promise<Association[]>;
  /** Writes links as they now stand, replacing the ones kept under the same term and tool. */
  put(associations: readonly Association[]): Promise<void>;
  remove(associations: readonly Pick<Association, 'term' | 'tool'>[]): Promise<void>;
  clear(): Promise<void>;
  close(): Promise<void>;
}

const MIGRATIONS = [
  `CREATE TABLE associations (
     term TEXT NOT NULL,
     tool TEXT NOT NULL,
     strength REAL NOT NULL,
     at INTEGER NOT NULL,
     PRIMARY KEY (term, tool)
   ) WITHOUT ROWID;`,
];

/**
 * The learned links in their own SQLite file beside the aggregator's state (`discovery.sqlite`),
 * so that clearing what was learnt is deleting one table's rows, and nothing of it ever mixes
 * with sessions, approvals or the audit log.
 */
export class SqliteAssociationStore implements AssociationStore {
  readonly #db: SqliteDatabase;
  readonly #upsert;
  readonly #delete;

  private constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#upsert = db.prepare(
      'INSERT INTO associations (term, tool, strength, at) VALUES (?, ?, ?, ?) ON CONFLICT (term, tool) DO UPDATE SET strength = excluded.strength, at = excluded.at',
    );
    this.#delete = db.prepare('DELETE FROM associations WHERE term = ? AND tool = ?');
  }

  static open(file: string): SqliteAssociationStore {
    return new SqliteAssociationStore(openDatabase(file, MIGRATIONS));
  }

  /** The store beside a state file (`<folder>/discovery.sqlite`). */
  static besideState(stateFile: string): SqliteAssociationStore {
    return SqliteAssociationStore.open(path.join(path.dirname(stateFile), 'discovery.sqlite'));
  }

  async all(): Promise<Association[]> {
    return this.#db.prepare('SELECT term, tool, strength, at FROM associations').all() as Association[];
  }

  async put(associations: readonly Association[]): Promise<void> {
    this.#db.transaction(() => {
      for (const { term, tool, strength, at } of associations) this.#upsert.run(term, tool, strength, at);
    })();
  }

  async remove(associations: readonly Pick<Association, 'term' | 'tool'>[]): Promise<void> {
    this.#db.transaction(() => {
      for (const { term, tool } of associations) this.#delete.run(term, tool);
    })();
  }

  async clear(): Promise<void> {
    this.#db.exec('DELETE FROM associations');
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

/**
 * The store that goes with `state`: beside its SQLite file, or none for state kept elsewhere or
 * in memory, or when the file cannot be opened (then learning stays in memory, said in the log).
 */
export function associationStoreFor(state: AggregatorState, log: Logger): AssociationStore | undefined {
  if (!(state instanceof SqliteState) || state.location === ':memory:') return undefined;
  try {
    return SqliteAssociationStore.besideState(state.location);
  } catch (error) {
    log.warning(
      `what discovery learns from use is kept in memory only: ${path.join(path.dirname(state.location), 'discovery.sqlite')} cannot be opened (${errorMessage(error)})`,
    );
    return undefined;
  }
}
