import * as crypto from 'node:crypto';
import type { ArgumentsDigest } from './audit-record.js';
import { redactArguments } from './redaction.js';

/** Enough to read what a call was about; a record stays small however big its arguments. */
export const MAX_REDACTED_CHARACTERS = 2000;

/** JSON with object keys sorted at every depth, so equal arguments give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += `${i === 0 ? '' : ','}${canonicalJson(value[i])}`;
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  // The default sort compares UTF-16 code units, as `<` does.
  const keys = Object.keys(record).sort();
  let text = '{';
  for (const key of keys) {
    const inner = record[key];
    if (inner === undefined) continue;
    text += `${text.length === 1 ? '' : ','}${JSON.stringify(key)}:${canonicalJson(inner)}`;
  }
  return `${text}}`;
}

/**
 * Whether JSON.stringify already writes `value` as canonicalJson does: JSON values only (no
 * undefined, which the two leave out differently), with every object's keys in sorted order.
 * Arguments are most often so, and one stringify then serves both the record and the digest.
 */
function stringifiesCanonically(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number')
    return true;
  if (typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!stringifiesCanonically(item)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let previous: string | undefined;
  for (const key of Object.keys(value)) {
    if (previous !== undefined && !(previous < key)) return false;
    if (!stringifiesCanonically((value as Record<string, unknown>)[key])) return false;
    previous = key;
  }
  return true;
}

/** One-shot hashing where Node has it (20.12 and later), a Hash object before. */
const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex');

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
  const text = JSON.stringify(redacted);
  return {
    redacted: cut(text, MAX_REDACTED_CHARACTERS),
    sha256: sha256Hex(stringifiesCanonically(redacted) ? text : canonicalJson(redacted)),
  };
}
