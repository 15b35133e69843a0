import { ToolError } from '@toolmesh/core';
import type { MemoryStore } from './memory-store.js';
import { conflictRef, memoryRef } from './refs.js';
import type { Actor, Conflict } from './types.js';

interface ConflictRow {
  id: number;
  domain: string;
  older_id: number;
  newer_id: number;
  method: string;
  explanation: string;
  suggestion: string;
  status: 'open' | 'resolved';
  resolution: string | null;
  detected_by: string;
  detected_at: string;
  resolved_at: string | null;
}

export interface NewConflict {
  domain: string;
  olderId: number;
  newerId: number;
  method: string;
  explanation: string;
  suggestion: string;
}

/** Detected contradictions between two facts, and how each was resolved. Nothing here deletes a fact. */
export class ConflictLog {
  constructor(private readonly store: MemoryStore) {}

  private toConflict(workspace: string, row: ConflictRow): Conflict {
    return {
      id: conflictRef(row.id),
      domain: row.domain,
      older: this.store.get(workspace, memoryRef('fact', row.older_id), 'fact'),
      newer: this.store.get(workspace, memoryRef('fact', row.newer_id), 'fact'),
      method: row.method,
      explanation: row.explanation,
      suggestion: row.suggestion,
      status: row.status,
      resolution: row.resolution,
      detectedBy: row.detected_by,
      detectedAt: row.detected_at,
      resolvedAt: row.resolved_at,
    };
  }

  /** Records a conflict unless this pair was recorded before; returns it when new. */
  record(actor: Actor, conflict: NewConflict): Conflict | undefined {
    const domain = this.store.db
      .prepare('SELECT id FROM domains WHERE workspace = ? AND name = ?')
      .get(actor.workspace, conflict.domain) as { id: number } | undefined;
    if (!domain) throw new ToolError(`domain "${conflict.domain}" not found`, 'not_found');
    const info = this.store.db
      .prepare(
        `INSERT OR IGNORE INTO conflicts (workspace, domain_id, older_id, newer_id, method, explanation, suggestion,
           detected_by, detected_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        actor.workspace,
        domain.id,
        conflict.olderId,
        conflict.newerId,
        conflict.method,
        conflict.explanation,
        conflict.suggestion,
        actor.identity,
        this.store.nowIso(),
      );
    return info.changes === 0 ? undefined : this.get(actor.workspace, Number(info.lastInsertRowid));
  }

  private get(workspace: string, id: number): Conflict {
    const row = this.store.db
      .prepare(
        `SELECT c.*, d.name AS domain FROM conflicts c JOIN domains d ON d.id = c.domain_id
         WHERE c.id = ? AND c.workspace = ?`,
      )
      .get(id, workspace) as ConflictRow;
    return this.toConflict(workspace, row);
  }

  resolve(workspace: string, id: string, resolution: string): Conflict {
    const number = Number(id.slice(2));
    this.store.db
      .prepare(
        `UPDATE conflicts SET status = 'resolved', resolution = ?, resolved_at = ? WHERE id = ? AND workspace = ?`,
      )
      .run(resolution, this.store.nowIso(), number, workspace);
    return this.get(workspace, number);
  }

  /** Conflicts of the workspace, newest first, from `offset` (at most `limit`), and their count. */
  list(
    workspace: string,
    filter: { status?: 'open' | 'resolved'; domain?: string },
    window: { offset: number; limit: number },
  ): { total: number; conflicts: Conflict[] } {
    const where = ['c.workspace = @workspace'];
    if (filter.status) where.push('c.status = @status');
    if (filter.domain !== undefined) where.push('d.name = @domain');
    const params = { workspace, ...filter };
    const from = `conflicts c JOIN domains d ON d.id = c.domain_id WHERE ${where.join(' AND ')}`;
    const { total } = this.store.db.prepare(`SELECT count(*) AS total FROM ${from}`).get(params) as {
      total: number;
    };
    const rows = this.store.db
      .prepare(`SELECT c.*, d.name AS domain FROM ${from} ORDER BY c.id DESC LIMIT @limit OFFSET @offset`)
      .all({ ...params, ...window }) as ConflictRow[];
    return { total, conflicts: rows.map((row) => this.toConflict(workspace, row)) };
  }
}
