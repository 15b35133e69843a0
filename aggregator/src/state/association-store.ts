import path from 'node:path';
import { errorMessage, type Logger, openDatabase, type SqliteDatabase } from '@toolmesh/core';
import type { Association } from '../discovery/learned-associations.js';
import { ComposedState } from './composed-state.js';
import { SqliteState } from './sqlite-state.js';
import type { AggregatorState, LiveState } from './state.js';

/** A change to the learned links that another process made. */
export type AssociationChange =
  | { put: Association[] }
  | { removed: Pick<Association, 'term' | 'tool'>[] }
  | { cleared: true };

/** Where the learned links of discovery are kept between runs. */
export interface AssociationStore {
  all(): Promise<Association[]>;
  /** Writes links as they now stand, replacing the ones kept under the same term and tool. */
  put(associations: readonly Association[]): Promise<void>;
  remove(associations: readonly Pick<Association, 'term' | 'tool'>[]): Promise<void>;
  clear(): Promise<void>;
  /**
   * For a store several replicas share: calls `listener` with each change another of them
   * makes, so what one learns lifts searches on all of them.
   */
  watch?(listener: (change: AssociationChange) => void): void;
  close(): Promise<void>;
}

/** A live state that keeps the learned links itself, for every replica sharing it (Redis). */
interface KeepsAssociations {
  associationStore(): AssociationStore;
}

function keepsAssociations(state: LiveState): state is LiveState & KeepsAssociations {
  return typeof (state as Partial<KeepsAssociations>).associationStore === 'function';
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
 * The store that goes with `state`'s live part: in Redis when it is shared there, so the whole
 * fleet learns as one; beside its SQLite file otherwise; none for state kept in memory, or when
 * the file cannot be opened (then learning stays in memory, said in the log).
 */
export function associationStoreFor(state: AggregatorState, log: Logger): AssociationStore | undefined {
  const live = state instanceof ComposedState ? state.live : state;
  if (keepsAssociations(live)) return live.associationStore();
  if (!(live instanceof SqliteState) || live.location === ':memory:') return undefined;
  try {
    return SqliteAssociationStore.besideState(live.location);
  } catch (error) {
    log.warning(
      `what discovery learns from use is kept in memory only: ${path.join(path.dirname(live.location), 'discovery.sqlite')} cannot be opened (${errorMessage(error)})`,
    );
    return undefined;
  }
}
