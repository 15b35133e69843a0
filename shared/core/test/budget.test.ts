import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, requestKey, takeWithinBudget, utf8Bytes } from '../src/budget.js';
import { ToolError } from '../src/tool-error.js';

describe('output budget', () => {
  const items = Array.from({ length: 10 }, (_, index) => ({ index, text: 'x'.repeat(90) }));
  const key = requestKey({ path: '.' });

  it('takes items while they fit and points the cursor at the first one left out', () => {
    const size = utf8Bytes(items[0]);
    const page = takeWithinBudget(items, size * 3 + 1, { key });
    expect(page.items.map((item) => item.index)).toEqual([0, 1, 2]);
    expect(page.truncated).toBe(true);
    expect(decodeCursor(page.nextCursor, key)).toBe(3);
    const next = takeWithinBudget(items, size * 100, { key, offset: decodeCursor(page.nextCursor, key) });
    expect(next.items[0]?.index).toBe(3);
    expect(next.truncated).toBe(false);
    expect(next.nextCursor).toBeUndefined();
  });

  it('counts UTF-8 bytes, not characters', () => {
    expect(utf8Bytes('é')).toBe(2);
    expect(utf8Bytes('日本')).toBe(6);
  });

  it('reports an item larger than the whole budget instead of looping on it', () => {
    const page = takeWithinBudget([{ text: 'y'.repeat(1000) }], 256, { key });
    expect(page).toMatchObject({ items: [], truncated: true, blockedByBudget: true });
    expect(page.minimumRequiredBytes).toBeGreaterThan(1000);
  });

  it('never hands back the cursor it was called with: a blocked page has no cursor', () => {
    const mixed = [{ text: 'a' }, { text: 'y'.repeat(1000) }, { text: 'b' }];
    const first = takeWithinBudget(mixed, 256, { key });
    expect(first.items).toEqual([{ text: 'a' }]);
    const blocked = takeWithinBudget(mixed, 256, { key, offset: decodeCursor(first.nextCursor, key) });
    expect(blocked).toMatchObject({ items: [], truncated: true, blockedByBudget: true });
    expect(blocked.nextCursor).toBeUndefined();
    const windowed = takeWithinBudget(mixed.slice(1), 256, { key, base: 1, more: true });
    expect(windowed.nextCursor).toBeUndefined();
  });

  it('refuses a cursor replayed against other arguments, or one it never issued', () => {
    const cursor = encodeCursor(5, key);
    expect(() => decodeCursor(cursor, requestKey({ path: 'src' }))).toThrow(/other arguments/);
    expect(() => decodeCursor('not-a-cursor', key)).toThrow(ToolError);
  });

  it('ignores maxTokens and cursor when keying a request', () => {
    expect(requestKey({ path: '.', maxTokens: 300, cursor: 'abc' })).toBe(requestKey({ path: '.' }));
  });
});
