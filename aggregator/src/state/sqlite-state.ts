import { randomUUID } from 'node:crypto';
import { openDatabase, type SqliteDatabase } from '@toolmesh/core';
import type { AuditQuery, AuditRecord } from '../audit/audit-record.js';
import { type AuditRow, auditOf, auditRowValues } from './audit-row.js';
import type {
  AggregatorState,
  ApprovalDecision,
  ApprovalRecord,
  DurableRecords,
  NewApproval,
  SessionRecord,
  StateHealth,
  TodoItem,
} from './state.js';

const MIGRATIONS = [
  `CREATE TABLE sessions (
     id TEXT PRIMARY KEY,
     mode TEXT NOT NULL,
     workspace TEXT,
     transport TEXT NOT NULL,
     started_at INTEGER NOT NULL,
     ended_at INTEGER
   );
   CREATE TABLE todos (
     session TEXT PRIMARY KEY,
     items TEXT NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE TABLE approvals (
     id TEXT PRIMARY KEY,
     session TEXT NOT NULL,
     mode TEXT NOT NULL,
     tool TEXT NOT NULL,
     server TEXT NOT NULL,
     arguments TEXT NOT NULL,
     reason TEXT NOT NULL,
     channel TEXT NOT NULL,
     status TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     decided_at INTEGER,
     decided_by TEXT,
     decision_reason TEXT
   );
   CREATE INDEX approvals_pending ON approvals (status, created_at);
   CREATE INDEX approvals_created ON approvals (created_at);
   CREATE TABLE approvers (
     name TEXT PRIMARY KEY,
     seen_at INTEGER NOT NULL
   );`,
  `CREATE TABLE audit (
     id INTEGER PRIMARY KEY,
     time INTEGER NOT NULL,
     identity TEXT NOT NULL,
     session TEXT NOT NULL,
     mode TEXT NOT NULL,
     workspace TEXT,
     tool TEXT NOT NULL,
     server TEXT NOT NULL,
     arguments_redacted TEXT NOT NULL,
     arguments_sha256 TEXT NOT NULL,
     decision TEXT NOT NULL,
     rule TEXT NOT NULL,
     approval TEXT,
     outcome TEXT NOT NULL,
     error TEXT,
     duration_ms REAL NOT NULL
   );
   CREATE INDEX audit_time ON audit (time);
   CREATE INDEX audit_identity ON audit (identity, time);
   CREATE INDEX audit_tool ON audit (tool, time);`,
  // Who asked, and where: an approver limited to some workspaces decides only theirs, and
  // nobody decides their own request.
  `ALTER TABLE approvals ADD COLUMN identity TEXT NOT NULL DEFAULT '';
   ALTER TABLE approvals ADD COLUMN workspace TEXT;`,
  // Every call writes an audit row, and each index is one more b-tree written with it. The one
  // query over the audit (auditRecords, one prepared statement whose filters are each `@x IS
  // NULL OR …`) and its pruning can only search by time, so these two were written and never read.
  `DROP INDEX audit_identity;
   DROP INDEX audit_tool;`,
];

interface ApprovalRow {
  id: string;
  session: string;
  identity: string;
  workspace: string | null;
  mode: string;
  tool: string;
  server: string;
  arguments: string;
  reason: string;
  channel: ApprovalRecord['channel'];
  status: ApprovalRecord['status'];
  created_at: number;
  expires_at: number;
  decided_at: number | null;
  decided_by: string | null;
  decision_reason: string | null;
}

interface SessionRow {
  id: string;
  mode: string;
  workspace: string | null;
  transport: SessionRecord['transport'];
  started_at: number;
  ended_at: number | null;
}

/** A tool-name glob (`*`, `?`) as SQLite GLOB reads it: `[` would open a character class there. */
function sqliteGlob(pattern: string): string {
  return pattern.replace(/\[/g, '[[]');
}

function approvalOf(row: ApprovalRow): ApprovalRecord {
  return {
    id: row.id,
    session: row.session,
    identity: row.identity,
    ...(row.workspace !== null && { workspace: row.workspace }),
    mode: row.mode,
    tool: row.tool,
    server: row.server,
    arguments: JSON.parse(row.arguments) as Record<string, unknown>,
    reason: row.reason,
    channel: row.channel,
    status: row.status,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    ...(row.decided_at !== null && { decidedAt: row.decided_at }),
    ...(row.decided_by !== null && { decidedBy: row.decided_by }),
    ...(row.decision_reason !== null && { decisionReason: row.decision_reason }),
  };
}

function sessionOf(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    mode: row.mode,
    transport: row.transport,
    startedAt: row.started_at,
    ...(row.workspace !== null && { workspace: row.workspace }),
    ...(row.ended_at !== null && { endedAt: row.ended_at }),
  };
}

/**
 * A person's verdict counts only before expiry. The closings that mean "it did not run" (timedOut,
 * declined, refused) must land after it too, or an expired approval would stay pending forever.
 */
const NEEDS_UNEXPIRED = new Set(['approved', 'denied']);

export interface SqliteStateOptions {
  /** The clock that stamps what the store dates itself (an approval's `createdAt`); tests pass their own. */
  now?: () => number;
  /**
   * The most the file may grow to; a write that needs more fails with SQLITE_FULL, as on a full
   * disk. SQLite keeps this limit per connection (PRAGMA max_page_count), so it is set here.
   */
  maxBytes?: number;
}

/**
 * The aggregator's state in one SQLite file (WAL), which several processes may open at once. It
 * also serves as the durable records beside a live state kept in Redis without PostgreSQL.
 */
export class SqliteState implements AggregatorState, DurableRecords {
  readonly location: string;
  readonly #db: SqliteDatabase;
  readonly #now: () => number;
  readonly #statements;

  private constructor(file: string, db: SqliteDatabase, now: () => number) {
    this.location = file;
    this.#db = db;
    this.#now = now;
    this.#statements = {
      saveSession: db.prepare(
        `INSERT INTO sessions (id, mode, workspace, transport, started_at, ended_at)
         VALUES (@id, @mode, @workspace, @transport, @startedAt, @endedAt)
         ON CONFLICT (id) DO UPDATE SET mode = excluded.mode, workspace = excluded.workspace,
           transport = excluded.transport, started_at = excluded.started_at, ended_at = excluded.ended_at`,
      ),
      session: db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE id = ?'),
      setMode: db.prepare('UPDATE sessions SET mode = ? WHERE id = ?'),
      endSession: db.prepare('UPDATE sessions SET ended_at = ? WHERE id = ?'),
      readTodos: db.prepare<[string], { items: string }>('SELECT items FROM todos WHERE session = ?'),
      writeTodos: db.prepare(
        `INSERT INTO todos (session, items, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (session) DO UPDATE SET items = excluded.items, updated_at = excluded.updated_at`,
      ),
      openApproval: db.prepare<[Record<string, unknown>], ApprovalRow>(
        `INSERT INTO approvals (id, session, identity, workspace, mode, tool, server, arguments, reason, channel, status, created_at, expires_at)
         VALUES (@id, @session, @identity, @workspace, @mode, @tool, @server, @arguments, @reason, @channel, 'pending', @createdAt, @expiresAt)
         RETURNING *`,
      ),
      approval: db.prepare<[string], ApprovalRow>('SELECT * FROM approvals WHERE id = ?'),
      archiveApproval: db.prepare(
        `INSERT INTO approvals (id, session, identity, workspace, mode, tool, server, arguments, reason, channel, status,
           created_at, expires_at, decided_at, decided_by, decision_reason)
         VALUES (@id, @session, @identity, @workspace, @mode, @tool, @server, @arguments, @reason, @channel, @status,
           @createdAt, @expiresAt, @decidedAt, @decidedBy, @decisionReason)
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, decided_at = excluded.decided_at,
           decided_by = excluded.decided_by, decision_reason = excluded.decision_reason`,
      ),
      pending: db.prepare<[number], ApprovalRow>(
        `SELECT * FROM approvals WHERE status = 'pending' AND expires_at > ? ORDER BY created_at, rowid`,
      ),
      // One guarded UPDATE: SQLite lets one writer at a time, so only the first decider finds it pending.
      decide: db.prepare<[Record<string, unknown>], ApprovalRow>(
        `UPDATE approvals SET status = @status, decided_at = @now, decided_by = @decidedBy, decision_reason = @reason
         WHERE id = @id AND status = 'pending' AND (expires_at > @now OR @anyTime = 1)
         RETURNING *`,
      ),
      history: db.prepare<[number, number], ApprovalRow>(
        'SELECT * FROM approvals WHERE created_at >= ? ORDER BY created_at DESC, rowid DESC LIMIT ?',
      ),
      touchApprover: db.prepare(
        `INSERT INTO approvers (name, seen_at) VALUES (?, ?)
         ON CONFLICT (name) DO UPDATE SET seen_at = max(seen_at, excluded.seen_at)`,
      ),
      approversSince: db.prepare<[number], { name: string }>(
        'SELECT name FROM approvers WHERE seen_at >= ? ORDER BY seen_at DESC',
      ),
      // One prepared INSERT per call: the audit is on every call's path. Its parameters are
      // bound by position, which spares a lookup by name of each of them on every call.
      recordAudit: db.prepare(
        `INSERT INTO audit (time, identity, session, mode, workspace, tool, server, arguments_redacted,
           arguments_sha256, decision, rule, approval, outcome, error, duration_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      auditRecords: db.prepare<[Record<string, unknown>], AuditRow>(
        `SELECT * FROM audit
         WHERE time >= @since AND (@until IS NULL OR time < @until)
           AND (@tool IS NULL OR tool GLOB @tool) AND (@identity IS NULL OR identity = @identity)
           AND (@server IS NULL OR server = @server) AND (@outcome IS NULL OR outcome = @outcome)
           AND (@mode IS NULL OR mode = @mode) AND (@workspace IS NULL OR workspace = @workspace)
           AND (@workspaces IS NULL OR workspace IN (SELECT value FROM json_each(@workspaces)))
         ORDER BY time DESC, id DESC LIMIT @limit OFFSET @offset`,
      ),
      pruneAudit: db.prepare('DELETE FROM audit WHERE time < ?'),
    };
  }

  /** Opens (creating if needed) the state file; an unreadable one says which file and what to do. */
  static open(file: string, options: SqliteStateOptions = {}): SqliteState {
    try {
      const db = openDatabase(file, MIGRATIONS);
      // Every call commits its audit record before its result is released. With WAL and NORMAL,
      // a commit is written to the WAL but not fsynced: it survives toolmesh crashing, not the
      // machine losing power before the next checkpoint; a full disk still fails the commit.
      // FULL's fsync per commit was most of the CPU toolmesh spent on a trivial proxied call.
      db.pragma('synchronous = NORMAL');
      if (options.maxBytes !== undefined) {
        const pageSize = db.pragma('page_size', { simple: true }) as number;
        db.pragma(`max_page_count = ${Math.max(1, Math.floor(options.maxBytes / pageSize))}`);
      }
      return new SqliteState(file, db, options.now ?? Date.now);
    } catch (error) {
      throw new Error(
        `cannot open toolmesh's state at ${file}: ${(error as Error).message}. Move the file aside (toolmesh starts a new one) or set TOOLMESH_DATA_DIR to another folder.`,
      );
    }
  }

  async saveSession(record: SessionRecord): Promise<void> {
    this.#statements.saveSession.run({
      ...record,
      workspace: record.workspace ?? null,
      endedAt: record.endedAt ?? null,
    });
  }

  async session(id: string): Promise<SessionRecord | undefined> {
    const row = this.#statements.session.get(id);
    return row && sessionOf(row);
  }

  async setSessionMode(id: string, mode: string): Promise<void> {
    this.#statements.setMode.run(mode, id);
  }

  async endSession(id: string, at: number): Promise<void> {
    this.#statements.endSession.run(at, id);
  }

  async readTodos(session: string): Promise<TodoItem[]> {
    const row = this.#statements.readTodos.get(session);
    return row ? (JSON.parse(row.items) as TodoItem[]) : [];
  }

  async writeTodos(session: string, todos: TodoItem[]): Promise<void> {
    this.#statements.writeTodos.run(session, JSON.stringify(todos), this.#now());
  }

  async openApproval(request: NewApproval): Promise<ApprovalRecord> {
    const row = this.#statements.openApproval.get({
      ...request,
      id: randomUUID(),
      workspace: request.workspace ?? null,
      arguments: JSON.stringify(request.arguments),
      createdAt: this.#now(),
    }) as ApprovalRow;
    return approvalOf(row);
  }

  async approval(id: string): Promise<ApprovalRecord | undefined> {
    const row = this.#statements.approval.get(id);
    return row && approvalOf(row);
  }

  async archiveApproval(record: ApprovalRecord): Promise<void> {
    this.#statements.archiveApproval.run({
      ...record,
      workspace: record.workspace ?? null,
      arguments: JSON.stringify(record.arguments),
      decidedAt: record.decidedAt ?? null,
      decidedBy: record.decidedBy ?? null,
      decisionReason: record.decisionReason ?? null,
    });
  }

  async pendingApprovals(now: number): Promise<ApprovalRecord[]> {
    return this.#statements.pending.all(now).map(approvalOf);
  }

  async decideApproval(
    id: string,
    decision: ApprovalDecision,
    now: number,
  ): Promise<ApprovalRecord | undefined> {
    const row = this.#statements.decide.get({
      id,
      now,
      status: decision.status,
      decidedBy: decision.decidedBy,
      reason: decision.reason ?? null,
      anyTime: NEEDS_UNEXPIRED.has(decision.status) ? 0 : 1,
    });
    return row && approvalOf(row);
  }

  async approvalHistory({ since = 0, limit }: { since?: number; limit: number }): Promise<ApprovalRecord[]> {
    return this.#statements.history.all(since, limit).map(approvalOf);
  }

  async touchApprover(name: string, now: number): Promise<void> {
    this.#statements.touchApprover.run(name, now);
  }

  async approversSeenSince(since: number): Promise<string[]> {
    return this.#statements.approversSince.all(since).map((row) => row.name);
  }

  async recordAudit(record: AuditRecord): Promise<void> {
    this.#statements.recordAudit.run(...auditRowValues(record));
  }

  async auditRecords(query: AuditQuery): Promise<AuditRecord[]> {
    const { since = 0, tool, limit, offset = 0 } = query;
    return this.#statements.auditRecords
      .all({
        since,
        until: query.until ?? null,
        tool: tool === undefined ? null : sqliteGlob(tool),
        identity: query.identity ?? null,
        server: query.server ?? null,
        outcome: query.outcome ?? null,
        mode: query.mode ?? null,
        workspace: query.workspace ?? null,
        workspaces: query.workspaces === undefined ? null : JSON.stringify(query.workspaces),
        limit,
        offset,
      })
      .map(auditOf);
  }

  async pruneAudit(before: number): Promise<number> {
    return this.#statements.pruneAudit.run(before).changes;
  }

  async health(): Promise<StateHealth> {
    return {};
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}
