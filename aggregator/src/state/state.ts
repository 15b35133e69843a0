import type { AuditQuery, AuditRecord } from '../audit/audit-record.js';

export type TodoStatus = 'pending' | 'in_progress' | 'completed';

export interface TodoItem {
  content: string;
  status: TodoStatus;
  activeForm?: string;
}

export interface SessionRecord {
  id: string;
  mode: string;
  workspace?: string;
  transport: 'stdio' | 'http';
  startedAt: number;
  endedAt?: number;
}

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'declined' | 'timedOut' | 'refused';

/** How the approval was asked: the client's elicitation, a connected approver, or nobody (refused). */
export type ApprovalChannel = 'elicitation' | 'approver' | 'none';

export interface NewApproval {
  session: string;
  /** Who asked: the session's identity. */
  identity: string;
  /** The workspace the call works in, when it names one. */
  workspace?: string;
  mode: string;
  tool: string;
  server: string;
  arguments: Record<string, unknown>;
  reason: string;
  channel: ApprovalChannel;
  expiresAt: number;
}

export interface ApprovalRecord extends NewApproval {
  id: string;
  status: ApprovalStatus;
  createdAt: number;
  decidedAt?: number;
  decidedBy?: string;
  decisionReason?: string;
}

/** How a shared store's connections stand, for /health and `toolmesh doctor`; a local store has none. */
export interface ConnectionHealth {
  ok: boolean;
  /** What was seen: the answer and its time, or what is wrong and how to fix it. */
  detail: string;
}

/**
 * What PostgreSQL has done with an audit record when it acknowledges it, and so when a call's
 * answer may go: `buffered` once the commit is in its WAL buffers (synchronous_commit off: safe
 * against any replica or Redis dying, lost only if PostgreSQL itself crashes within about three
 * wal_writer_delay), `flushed` once the WAL is on disk (synchronous_commit on: a disk flush per
 * commit, shared by the calls that end together). See docs/deployment.md.
 */
export const AUDIT_COMMITS = ['buffered', 'flushed'] as const;
export type AuditCommit = (typeof AUDIT_COMMITS)[number];

export interface StateHealth {
  redis?: ConnectionHealth;
  postgres?: ConnectionHealth;
}

export interface ApprovalDecision {
  status: Exclude<ApprovalStatus, 'pending'>;
  decidedBy: string;
  reason?: string;
}

/**
 * Everything the aggregator keeps beyond one process's life, behind one narrow interface so
 * that a shared store (Redis) can stand in for the embedded one. Times are epoch milliseconds
 * passed by the caller, so the clock is the caller's (the one exception: `createdAt`, stamped by
 * the store when an approval opens).
 */
export interface AggregatorState {
  /** Where the state lives, for messages a person acts on: the file, or the server without credentials. */
  readonly location: string;
  /** Records a session as it starts; saving the same id again replaces it. */
  saveSession(record: SessionRecord): Promise<void>;
  /** The session as last saved, undefined for an id never saved. */
  session(id: string): Promise<SessionRecord | undefined>;
  /** Keeps a mode switch, so the session's mode survives a restart and is seen by every process. */
  setSessionMode(id: string, mode: string): Promise<void>;
  /** Marks the session over; its todos and approvals stay for the history. */
  endSession(id: string, at: number): Promise<void>;
  /** The session's todo list, empty when it never wrote one. */
  readTodos(session: string): Promise<TodoItem[]>;
  /** Replaces the whole list atomically: a reader sees the old list or the new one, never a mix. */
  writeTodos(session: string, todos: TodoItem[]): Promise<void>;
  /** Opens a pending approval under a random, unguessable id (crypto.randomUUID), as the one to decide by. */
  openApproval(request: NewApproval): Promise<ApprovalRecord>;
  /** One approval, decided or not; undefined for an unknown id. */
  approval(id: string): Promise<ApprovalRecord | undefined>;
  /** What waits for a person: pending and not expired at `now`, oldest first. */
  pendingApprovals(now: number): Promise<ApprovalRecord[]>;
  /**
   * Decides a pending approval atomically, so of two deciders racing exactly one wins; a person's
   * verdict (approved, denied) needs it unexpired at `now`, toolmesh's own closing (timedOut,
   * declined, refused) does not. Undefined when it was not pending (decided, expired, unknown).
   */
  decideApproval(id: string, decision: ApprovalDecision, now: number): Promise<ApprovalRecord | undefined>;
  /** Every approval opened since `since` with its decision, newest first, for the audit. */
  approvalHistory(options: { since?: number; limit: number }): Promise<ApprovalRecord[]>;
  /** Heartbeat of a connected approver: approvals go to approvers seen recently, else are refused. */
  touchApprover(name: string, now: number): Promise<void>;
  /** Names of the approvers whose last heartbeat is at or after `since`. */
  approversSeenSince(since: number): Promise<string[]>;
  /**
   * Appends one audit record. It must not be slow (it is on every call's path) and must throw
   * when the record is not kept (a full disk), never drop it silently.
   */
  recordAudit(record: AuditRecord): Promise<void>;
  /** The audit records matching the query, newest first. */
  auditRecords(query: AuditQuery): Promise<AuditRecord[]>;
  /** Deletes the audit records from before `before`; resolves to how many. */
  pruneAudit(before: number): Promise<number>;
  /** The shared stores' connections as they stand now; `{}` for a store that has none (SQLite). */
  health(): Promise<StateHealth>;
  /**
   * Resolves when a decision on `id` may have been made by any process, or after `withinMs`,
   * or when `signal` aborts. Stores without notifications leave it out, and waiters poll.
   */
  nextDecision?(id: string, withinMs: number, signal: AbortSignal): Promise<void>;
  /** Releases the store; closing twice is harmless. */
  close(): Promise<void>;
}

/**
 * The durable part of the state, which must outlive any process and any Redis: the audit log
 * and the decided approvals. SQLite keeps it in the state file, PostgreSQL for a whole fleet.
 */
export interface DurableRecords
  extends Pick<
    AggregatorState,
    'location' | 'recordAudit' | 'auditRecords' | 'pruneAudit' | 'approvalHistory' | 'health' | 'close'
  > {
  /** Keeps an approval as it now stands (decided, usually); keeping the same id again replaces it. */
  archiveApproval(record: ApprovalRecord): Promise<void>;
}

/** The live part of the state: sessions, todos, pending approvals, approvers (SQLite or Redis). */
export type LiveState = Omit<
  AggregatorState,
  'recordAudit' | 'auditRecords' | 'pruneAudit' | 'approvalHistory'
>;
