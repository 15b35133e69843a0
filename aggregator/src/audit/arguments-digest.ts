import { createHash } from 'node:crypto';
import type { ArgumentsDigest } from './audit-record.js';
import { redactArguments } from './redaction.js';

/** Enough to read what a call was about; a record stays small however big its arguments. */
export const MAX_REDACTED_CHARACTERS = 2000;

/** JSON with object keys sorted at every depth, so equal arguments give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = `…(${text.length.toLocaleString('en-US')} characters)`;
  return `${text.slice(0, max - marker.length)}${marker}`;
}

/**
 * The arguments of a call as the audit keeps them: redacted and bounded, plus a digest of the
 * whole redacted arguments. The digest is of the redacted form so that it gives away nothing
 * of a secret: a hash of the real arguments would let whoever reads the log confirm a guess.
 */
export function digestArguments(args: Record<string, unknown>): ArgumentsDigest {
  const redacted = redactArguments(args);
  return {
    redacted: cut(JSON.stringify(redacted), MAX_REDACTED_CHARACTERS),
    sha256: createHash('sha256').update(canonicalJson(redacted)).digest('hex'),
  };
}
