/** What the mode table said about the call. */
export type AuditDecision = 'allow' | 'confirm' | 'deny';

/** How a person's approval of a `confirm` call ended. */
export type AuditApproval = 'approved' | 'declined' | 'denied' | 'timedOut' | 'refused';

/**
 * How the call ended: `ok` and `isError` are the tool's own answers; `refused` means it never
 * ran (denied by the mode, not approved, a wrong workspace); `cutOff` means the replica that ran
 * it died first (another replica recorded it: it may or may not have run); the rest are
 * failures on the way.
 */
export const AUDIT_OUTCOMES = [
  'ok',
  'isError',
  'refused',
  'timeout',
  'crash',
  'cancelled',
  'unavailable',
  'protocolError',
  'cutOff',
] as const;

export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** The arguments as the audit keeps them: readable without their secrets, and matchable. */
export interface ArgumentsDigest {
  /** Compact JSON with secret-looking keys and strings redacted, cut to a bounded size. */
  redacted: string;
  /** sha256 (hex) of the whole redacted arguments as canonical JSON: equal arguments, equal digest; secrets do not count. */
  sha256: string;
}

/** One tools/call that reached policy. */
export interface AuditRecord {
  /** When the call arrived, epoch milliseconds. */
  time: number;
  /** Who called: a token's name over HTTP, `local:<user>` otherwise. */
  identity: string;
  session: string;
  /** The session's mode when the call arrived. */
  mode: string;
  workspace?: string;
  /** The exposed name of the tool the call was decided on (a call_tool call's target). */
  tool: string;
  server: string;
  argumentsDigest: ArgumentsDigest;
  decision: AuditDecision;
  /** The rule of the mode table that decided, in words. */
  rule: string;
  /** Set when the decision was `confirm`. */
  approval?: AuditApproval;
  outcome: AuditOutcome;
  /** What the client was told when the outcome is not `ok`. */
  error?: string;
  /** From the call's arrival to its answer, approval wait included. */
  durationMs: number;
}

export interface AuditQuery {
  /** Records at or after this time, epoch milliseconds. */
  since?: number;
  /** A tool-name glob (`*`, `?`) matched against the exposed name. */
  tool?: string;
  identity?: string;
  /** Records before this time, epoch milliseconds. */
  until?: number;
  server?: string;
  outcome?: AuditOutcome;
  mode?: string;
  workspace?: string;
  /** Only records of one of these workspaces: what a reader limited to them may see. */
  workspaces?: readonly string[];
  limit: number;
  /** How many matching records to skip, newest first: a page's start. */
  offset?: number;
}
