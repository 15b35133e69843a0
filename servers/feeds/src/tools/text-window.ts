import { createHash } from 'node:crypto';
import { decodePosition, encodePosition, requestKey, ToolError, utf8Bytes } from '@toolmesh/core';

/** The least room worth answering with: below it, the caller is told to raise maxTokens. */
const LEAST_ROOM = 200;

/** What one code point costs in a JSON string: quotes, backslashes and control characters are escaped. */
function jsonBytes(code: number): number {
  if (code === 0x22 || code === 0x5c || code === 0x08 || code === 0x0c) return 2;
  if (code === 0x0a || code === 0x0d || code === 0x09) return 2;
  if (code < 0x20 || (code >= 0xd800 && code < 0xe000)) return 6;
  return code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
}

/**
 * The longest part of `text` from `from` whose size in the JSON answer fits `bytes`, cut at a line
 * or word when it can be.
 */
function sliceWithinBytes(text: string, from: number, bytes: number): string {
  let end = from;
  let used = 0;
  while (end < text.length) {
    const code = text.codePointAt(end) as number;
    const size = jsonBytes(code);
    if (used + size > bytes) break;
    used += size;
    end += code >= 0x10000 ? 2 : 1;
  }
  if (end >= text.length) return text.slice(from);
  const cut = text.slice(from, end);
  const at = Math.max(cut.lastIndexOf('\n'), cut.lastIndexOf(' '));
  return at > cut.length / 2 ? cut.slice(0, at + 1) : cut;
}

/** A long text to answer in parts, and what a later part needs unchanged to continue an earlier one. */
export interface PagedText {
  text: string;
  /** What the text is made of, when the text itself varies from call to call (a date in it); the text by default. */
  madeOf?: string;
  /** The error for a cursor issued before the text changed: what changed, and to start again without cursor. */
  changed: string;
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 12);

/** Where the next part starts, in the text the cursor was issued for. */
function startOf(cursor: string | undefined, key: string, revision: string, changed: string): number {
  if (cursor === undefined) return 0;
  const position = decodePosition(cursor, key) as { at?: unknown; of?: unknown } | null;
  const at = position?.at;
  if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || typeof position?.of !== 'string') {
    throw new ToolError('`cursor` is not a cursor this server issued: call again without it.', 'bad_cursor');
  }
  // A part of another text would not join the earlier parts: lines skipped or repeated.
  if (position.of !== revision) throw new ToolError(changed, 'bad_cursor');
  return at;
}

/**
 * The part of a long text that fits a budgeted answer, from the request's cursor on: `answer`
 * builds the whole answer around a part (so its fields and any frame are paid for first), and
 * nextCursor continues where the part ends, in that same text only.
 */
export function textWindow<T extends object>(
  args: { maxTokens: number; cursor?: string | undefined },
  paged: PagedText,
  answer: (part: string) => T,
):
  | (T & { truncated: boolean; nextCursor?: string })
  | (T & { truncated: true; blockedByBudget: true; minimumRequiredBytes: number }) {
  const { text } = paged;
  const key = requestKey(args);
  const revision = digest(paged.madeOf ?? text);
  const from = startOf(args.cursor, key, revision, paged.changed);
  const cursorAt = (at: number) => encodePosition({ at, of: revision }, key);
  const around = utf8Bytes({ ...answer(''), truncated: true, nextCursor: cursorAt(text.length) });
  const room = args.maxTokens - around;
  if (room < LEAST_ROOM) {
    return {
      ...answer(''),
      truncated: true,
      blockedByBudget: true,
      minimumRequiredBytes: around + LEAST_ROOM,
    };
  }
  const part = sliceWithinBytes(text, from, room);
  const end = from + part.length;
  return {
    ...answer(part),
    truncated: end < text.length,
    ...(end < text.length && { nextCursor: cursorAt(end) }),
  };
}
