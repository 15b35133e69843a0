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

export interface ApprovalDecision {
  status: Exclude<ApprovalStatus, 'pending'>;
  decidedBy: string;
  reason?: string;
}

/**
 * Everything the aggregator keeps beyond one process's life, behind one narrow interface so
 * that a shared store (Redis) can stand in for the embedded one. Times are epoch milliseconds
 * passed by the caller, so the clock is the caller's.
 */
export interface AggregatorState {
  saveSession(record: SessionRecord): Promise<void>;
  session(id: string): Promise<SessionRecord | undefined>;
  setSessionMode(id: string, mode: string): Promise<void>;
  endSession(id: string, at: number): Promise<void>;
  /** The session's todo list, empty when it never wrote one. */
  readTodos(session: string): Promise<TodoItem[]>;
  /** Replaces the whole list at once: a reader sees the old list or the new one, never a mix. */
  writeTodos(session: string, todos: TodoItem[]): Promise<void>;
  /** Opens a pending approval under a random, unguessable id. */
  openApproval(request: NewApproval): Promise<ApprovalRecord>;
  approval(id: string): Promise<ApprovalRecord | undefined>;
  /** Pending and unexpired approvals, oldest first. */
  pendingApprovals(now: number): Promise<ApprovalRecord[]>;
  /**
   * Decides a pending, unexpired approval, atomically: of two deciders racing, exactly one wins.
   * Undefined when it was not pending (decided already, expired, unknown).
   */
  decideApproval(id: string, decision: ApprovalDecision, now: number): Promise<ApprovalRecord | undefined>;
  /** Every approval with its decision, newest first. */
  approvalHistory(options: { since?: number; limit: number }): Promise<ApprovalRecord[]>;
  /** A connected approver says it is still there. */
  touchApprover(name: string, now: number): Promise<void>;
  approversSeenSince(since: number): Promise<string[]>;
  close(): Promise<void>;
}
