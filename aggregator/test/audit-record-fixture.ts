import { digestArguments } from '../src/audit/arguments-digest.js';
import type { AuditRecord } from '../src/audit/audit-record.js';

/** An allowed, successful read by a local user: the record audit tests vary one field of. */
export function auditRecord(overrides: Partial<AuditRecord> & { time: number }): AuditRecord {
  return {
    identity: 'local:ana',
    session: 's1',
    mode: 'chat',
    tool: 'fs__read_file',
    server: 'fs',
    argumentsDigest: digestArguments({ path: 'a.txt' }),
    decision: 'allow',
    rule: 'mode chat allows everything',
    outcome: 'ok',
    durationMs: 1.5,
    ...overrides,
  };
}
