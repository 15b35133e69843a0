import type { AuditRecord } from '../audit/audit-record.js';

/** An audit record as both stores keep it: one column a field, nulls for what it lacks. */
export interface AuditRow {
  /** PostgreSQL returns a BIGINT as text. */
  time: number | string;
  identity: string;
  session: string;
  mode: string;
  workspace: string | null;
  tool: string;
  server: string;
  arguments_redacted: string;
  arguments_sha256: string;
  decision: AuditRecord['decision'];
  rule: string;
  approval: AuditRecord['approval'] | null;
  outcome: AuditRecord['outcome'];
  error: string | null;
  duration_ms: number;
}

export function auditOf(row: AuditRow): AuditRecord {
  return {
    time: Number(row.time),
    identity: row.identity,
    session: row.session,
    mode: row.mode,
    ...(row.workspace !== null && { workspace: row.workspace }),
    tool: row.tool,
    server: row.server,
    argumentsDigest: { redacted: row.arguments_redacted, sha256: row.arguments_sha256 },
    decision: row.decision,
    rule: row.rule,
    ...(row.approval !== null && { approval: row.approval }),
    outcome: row.outcome,
    ...(row.error !== null && { error: row.error }),
    durationMs: row.duration_ms,
  };
}

/** A record's column values in the order both stores' INSERTs name them (time, identity … duration_ms). */
export function auditRowValues(record: AuditRecord): unknown[] {
  return [
    record.time,
    record.identity,
    record.session,
    record.mode,
    record.workspace ?? null,
    record.tool,
    record.server,
    record.argumentsDigest.redacted,
    record.argumentsDigest.sha256,
    record.decision,
    record.rule,
    record.approval ?? null,
    record.outcome,
    record.error ?? null,
    record.durationMs,
  ];
}
