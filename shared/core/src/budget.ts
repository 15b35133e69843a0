import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ToolError } from './tool-error.js';

export const DEFAULT_MAX_TOKENS = 4000;
export const MIN_MAX_TOKENS = 256;
export const MAX_MAX_TOKENS = 64000;

/** The `maxTokens` argument shared by every list, search and read tool. */
export const maxTokensArg = z
  .number()
  .int()
  .min(MIN_MAX_TOKENS)
  .max(MAX_MAX_TOKENS)
  .default(DEFAULT_MAX_TOKENS)
  .describe(
    `Output budget, counted as UTF-8 bytes (${MIN_MAX_TOKENS}-${MAX_MAX_TOKENS}, default ${DEFAULT_MAX_TOKENS}). Over budget the result is cut and carries nextCursor.`,
  );

export const cursorArg = z
  .string()
  .max(2048)
  .optional()
  .describe('The nextCursor of a previous truncated answer to this same request, to continue it.');

/** The budget fields every budgeted output carries. */
export const budgetFields = {
  truncated: z.boolean().describe('True when the budget cut the result; continue with nextCursor.'),
  nextCursor: z.string().optional(),
  blockedByBudget: z
    .boolean()
    .optional()
    .describe(
      'True when the next item alone is larger than the budget: repeat the call (same cursor) with maxTokens of at least minimumRequiredBytes.',
    ),
  minimumRequiredBytes: z.number().int().optional(),
};

export interface BudgetPage<T> {
  items: T[];
  truncated: boolean;
  nextCursor?: string;
  blockedByBudget?: boolean;
  minimumRequiredBytes?: number;
}

export function utf8Bytes(value: unknown): number {
  return Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value), 'utf8');
}

/**
 * A cursor is the offset to resume from, bound to the request it came from so that a cursor
 * replayed against other arguments is refused instead of silently skipping results.
 */
export function requestKey(args: Record<string, unknown>): string {
  const { cursor: _cursor, maxTokens: _maxTokens, ...rest } = args;
  const canonical = JSON.stringify(rest, Object.keys(rest).sort());
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 12);
}

/** A cursor carrying any JSON position (an offset, or where a walk stopped), bound to its request. */
export function encodePosition(position: unknown, key: string): string {
  return Buffer.from(JSON.stringify({ o: position, k: key })).toString('base64url');
}

export function decodePosition(cursor: string, key: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const { o, k } = (parsed ?? {}) as { o?: unknown; k?: unknown };
  if (o === undefined || typeof k !== 'string') {
    throw new ToolError('`cursor` is not a cursor this server issued: call again without it.', 'bad_cursor');
  }
  if (k !== key) {
    throw new ToolError(
      '`cursor` belongs to a request with other arguments: repeat that request, or call again without cursor.',
      'bad_cursor',
    );
  }
  return o;
}

export function encodeCursor(offset: number, key: string): string {
  return encodePosition(offset, key);
}

export function decodeCursor(cursor: string | undefined, key: string): number {
  if (cursor === undefined) return 0;
  const offset = decodePosition(cursor, key);
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) {
    throw new ToolError('`cursor` is not a cursor this server issued: call again without it.', 'bad_cursor');
  }
  return offset;
}

/** The answer when the next piece alone is larger than the whole budget: no items, no cursor. */
export function blockedPage<T>(minimumRequiredBytes: number): BudgetPage<T> {
  return { items: [], truncated: true, blockedByBudget: true, minimumRequiredBytes };
}

/**
 * Takes items in order from `offset` while their UTF-8 JSON size fits `budgetBytes`. The cursor
 * of a cut page points at the first item left out, so every cursor moves forward; a page that
 * cannot hold even its first item is blocked instead.
 */
export function takeWithinBudget<T>(
  items: readonly T[],
  budgetBytes: number,
  options: {
    offset?: number;
    key: string;
    size?: (item: T) => number;
    more?: boolean;
    /** Where `items[0]` stands in the whole list, when `items` is a window the engine read from it. */
    base?: number;
  },
): BudgetPage<T> {
  const offset = options.offset ?? 0;
  const base = options.base ?? 0;
  const size = options.size ?? utf8Bytes;
  const taken: T[] = [];
  let used = 0;
  for (let index = offset; index < items.length; index++) {
    const item = items[index] as T;
    const bytes = size(item);
    if (used + bytes > budgetBytes) {
      // A cursor at the item that did not fit would hand the caller its own cursor back: the
      // blocked page carries none, and the caller repeats its call with a larger maxTokens.
      if (taken.length === 0) return blockedPage(bytes);
      return { items: taken, truncated: true, nextCursor: encodeCursor(base + index, options.key) };
    }
    used += bytes;
    taken.push(item);
  }
  if (options.more) {
    return { items: taken, truncated: true, nextCursor: encodeCursor(base + items.length, options.key) };
  }
  return { items: taken, truncated: false };
}

/**
 * The page of `items` a paged request asks for: from the request's cursor, within its
 * `maxTokens`, with a next cursor bound to the request's other arguments.
 */
export function requestedPage<T>(
  items: readonly T[],
  args: { cursor?: string | undefined; maxTokens: number } & Record<string, unknown>,
): BudgetPage<T> {
  const key = requestKey(args);
  return takeWithinBudget(items, args.maxTokens, { offset: decodeCursor(args.cursor, key), key });
}

/**
 * A paged request over a store that reads only a window: `read` gets the window from the
 * request's cursor, sized so that items of at least `smallestItemBytes` fill more than the
 * budget, and says how many match in all; the page is cut from that window.
 */
export function requestedWindowPage<T>(
  args: { cursor?: string | undefined; maxTokens: number } & Record<string, unknown>,
  smallestItemBytes: number,
  read: (window: { offset: number; limit: number }) => { total: number; items: T[] },
): BudgetPage<T> & { total: number } {
  const key = requestKey(args);
  const offset = decodeCursor(args.cursor, key);
  const { total, items } = read({ offset, limit: Math.ceil(args.maxTokens / smallestItemBytes) + 1 });
  return {
    total,
    ...takeWithinBudget(items, args.maxTokens, { key, base: offset, more: offset + items.length < total }),
  };
}
