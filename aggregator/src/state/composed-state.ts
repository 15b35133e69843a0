import type { AuditQuery, AuditRecord } from '../audit/audit-record.js';
import type {
  AggregatorState,
  ApprovalDecision,
  ApprovalRecord,
  DurableRecords,
  LiveState,
  NewApproval,
  SessionRecord,
  StateHealth,
  TodoItem,
} from './state.js';

/**
 * The state as two parts: the live one (sessions, todos, pending approvals, approvers) in SQLite
 * or Redis, the durable one (audit, decided approvals) in SQLite or PostgreSQL. A decided
 * approval is archived in the durable part before the decision is reported, so the history
 * survives Redis losing its data.
 */
export class ComposedState implements AggregatorState {
  readonly location: string;

  constructor(
    readonly live: LiveState,
    readonly records: DurableRecords,
  ) {
    this.location = `${live.location} (audit in ${records.location})`;
    if (live.nextDecision) this.nextDecision = live.nextDecision.bind(live);
  }

  readonly nextDecision?: (id: string, withinMs: number, signal: AbortSignal) => Promise<void>;

  saveSession(record: SessionRecord): Promise<void> {
    return this.live.saveSession(record);
  }

  session(id: string): Promise<SessionRecord | undefined> {
    return this.live.session(id);
  }

  setSessionMode(id: string, mode: string): Promise<void> {
    return this.live.setSessionMode(id, mode);
  }

  endSession(id: string, at: number): Promise<void> {
    return this.live.endSession(id, at);
  }

  readTodos(session: string): Promise<TodoItem[]> {
    return this.live.readTodos(session);
  }

  writeTodos(session: string, todos: TodoItem[]): Promise<void> {
    return this.live.writeTodos(session, todos);
  }

  openApproval(request: NewApproval): Promise<ApprovalRecord> {
    return this.live.openApproval(request);
  }

  approval(id: string): Promise<ApprovalRecord | undefined> {
    return this.live.approval(id);
  }

  pendingApprovals(now: number): Promise<ApprovalRecord[]> {
    return this.live.pendingApprovals(now);
  }

  async decideApproval(
    id: string,
    decision: ApprovalDecision,
    now: number,
  ): Promise<ApprovalRecord | undefined> {
    const decided = await this.live.decideApproval(id, decision, now);
    // Only the one winner archives, so the history holds each decision once.
    if (decided) await this.records.archiveApproval(decided);
    return decided;
  }

  /** The archived decisions, with what is still pending in the live part, newest first. */
  async approvalHistory({ since = 0, limit }: { since?: number; limit: number }): Promise<ApprovalRecord[]> {
    const [archived, pending] = await Promise.all([
      this.records.approvalHistory({ since, limit }),
      this.live.pendingApprovals(0),
    ]);
    const archivedIds = new Set(archived.map((record) => record.id));
    return [
      ...pending.filter((record) => record.createdAt >= since && !archivedIds.has(record.id)),
      ...archived,
    ]
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, limit);
  }

  touchApprover(name: string, now: number): Promise<void> {
    return this.live.touchApprover(name, now);
  }

  approversSeenSince(since: number): Promise<string[]> {
    return this.live.approversSeenSince(since);
  }

  recordAudit(record: AuditRecord): Promise<void> {
    return this.records.recordAudit(record);
  }

  auditRecords(query: AuditQuery): Promise<AuditRecord[]> {
    return this.records.auditRecords(query);
  }

  pruneAudit(before: number): Promise<number> {
    return this.records.pruneAudit(before);
  }

  async health(): Promise<StateHealth> {
    const [live, records] = await Promise.all([this.live.health(), this.records.health()]);
    return { ...live, ...records };
  }

  async close(): Promise<void> {
    await Promise.all([this.live.close(), this.records.close()]);
  }
}
