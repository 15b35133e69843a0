import type { SqliteDatabase } from '@toolmesh/core';
import { type Clock, isoAt } from '../store/clock.js';
import { type HotItem, type HotMemory, type HotScope, hotRef, type NewHotItem } from './hot-memory.js';

interface HotRow {
  id: number;
  identity: string;
  domain: string;
  text: string;
  durable: number;
  created_ms: number;
  /** Null until the item is remembered again. */
  noted_ms: number | null;
  expires_ms: number;
  recalls: number;
}

function toItem(row: HotRow): HotItem {
  return {
    id: hotRef(row.id),
    identity: row.identity,
    domain: row.domain,
    text: row.text,
    durable: row.durable === 1,
    createdAt: isoAt(row.created_ms),
    notedAt: isoAt(row.noted_ms ?? row.created_ms),
    expiresAt: isoAt(row.expires_ms),
    recalls: row.recalls,
  };
}

const rowId = (item: HotItem) => Number(item.id.slice(2));

/** Hot memory in the memory server's SQLite file: shared by the processes on that file. */
export class SqliteHotMemory implements HotMemory {
  readonly backend = 'sqlite';

  constructor(
    private readonly db: SqliteDatabase,
    private readonly now: Clock,
    private readonly maxItemsPerIdentity: number,
  ) {}

  async add(scope: HotScope, item: NewHotItem) {
    return this.db
      .transaction(() => {
        const now = this.now();
        this.db
          .prepare('DELETE FROM hot_items WHERE workspace = ? AND identity = ? AND expires_ms <= ?')
          .run(scope.workspace, scope.identity, now);
        const same = this.db
          .prepare(
            'SELECT * FROM hot_items WHERE workspace = ? AND identity = ? AND text_key = ? ORDER BY id DESC LIMIT 1',
          )
          .get(scope.workspace, scope.identity, item.key) as HotRow | undefined;
        if (same) {
          // A repeat marked durable makes the held item durable: the request to keep it is not lost.
          const durable = same.durable === 1 || item.durable ? 1 : 0;
          this.db
            .prepare('UPDATE hot_items SET recalls = recalls + 1, durable = ?, noted_ms = ? WHERE id = ?')
            .run(durable, now, same.id);
          return {
            item: toItem({ ...same, durable, recalls: same.recalls + 1, noted_ms: now }),
            evicted: [],
            repeated: true,
          };
        }
        const info = this.db
          .prepare(
            `INSERT INTO hot_items (workspace, identity, domain, text, text_key, durable, created_ms, expires_ms)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            scope.workspace,
            scope.identity,
            item.domain,
            item.text,
            item.key,
            item.durable ? 1 : 0,
            now,
            now + item.ttlMs,
          );
        const overflow = this.db
          .prepare(
            `SELECT id FROM hot_items WHERE workspace = ? AND identity = ? ORDER BY id DESC LIMIT -1 OFFSET ?`,
          )
          .all(scope.workspace, scope.identity, this.maxItemsPerIdentity) as { id: number }[];
        const evicted = overflow.map((row) => row.id).sort((a, b) => a - b);
        const drop = this.db.prepare('DELETE FROM hot_items WHERE id = ?');
        for (const id of evicted) drop.run(id);
        const row = this.db
          .prepare('SELECT * FROM hot_items WHERE id = ?')
          .get(Number(info.lastInsertRowid)) as HotRow;
        return { item: toItem(row), evicted: evicted.map(hotRef), repeated: false };
      })
      .immediate();
  }

  async list(scope: HotScope): Promise<HotItem[]> {
    const rows = this.db
      .prepare(
        `SELECT * FROM hot_items WHERE workspace = ? AND identity = ? AND expires_ms > ? ORDER BY id DESC`,
      )
      .all(scope.workspace, scope.identity, this.now()) as HotRow[];
    return rows.map(toItem);
  }

  async recall(workspace: string, items: readonly HotItem[]): Promise<void> {
    const bump = this.db.prepare(
      'UPDATE hot_items SET recalls = recalls + 1 WHERE id = ? AND workspace = ? AND expires_ms > ?',
    );
    const now = this.now();
    this.db.transaction(() => {
      for (const item of items) bump.run(rowId(item), workspace, now);
    })();
  }

  async sweep(workspace: string) {
    return this.db
      .transaction(() => {
        const now = this.now();
        const expired = this.db
          .prepare('DELETE FROM hot_items WHERE workspace = ? AND expires_ms <= ?')
          .run(workspace, now).changes;
        const live = (
          this.db
            .prepare('SELECT * FROM hot_items WHERE workspace = ? ORDER BY id')
            .all(workspace) as HotRow[]
        ).map(toItem);
        return { live, expired };
      })
      .immediate();
  }

  async remove(workspace: string, items: readonly HotItem[]): Promise<void> {
    const drop = this.db.prepare('DELETE FROM hot_items WHERE id = ? AND workspace = ?');
    this.db.transaction(() => {
      for (const item of items) drop.run(rowId(item), workspace);
    })();
  }

  async close(): Promise<void> {}
}
