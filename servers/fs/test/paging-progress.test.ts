import { everyPage } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FsFixture, fsFixture } from './fixture.js';

// Every page at the smallest budget either moves forward or says what budget it needs.
const SMALLEST = 256;
const FILES = 40;

interface Paged {
  truncated: boolean;
  nextCursor?: string;
  blockedByBudget?: boolean;
  minimumRequiredBytes?: number;
}

let fx: FsFixture;

beforeAll(async () => {
  fx = await fsFixture();
  for (let index = 0; index < FILES; index++)
    fx.write(`items/file-${String(index).padStart(2, '0')}.txt`, `needle ${index}\n`);
  fx.write('long-line.txt', `short\n${'x'.repeat(1000)}\nshort again\n`);
});
afterAll(() => fx.close());

/** Follows cursors; the pages end with every item once, or with a blocked page and no cursor. */
async function follow<T extends Paged>(
  tool: string,
  args: Record<string, unknown>,
  itemsOf: (page: T) => unknown[],
) {
  const pages = await everyPage((a) => fx.ok<T>(tool, a), { ...args, maxTokens: SMALLEST }, FILES + 1);
  const last = pages.at(-1) as T;
  for (const page of pages.slice(0, -1)) expect(itemsOf(page).length).toBeGreaterThan(0);
  if (last.blockedByBudget) {
    expect(last.nextCursor).toBeUndefined();
    expect(last.minimumRequiredBytes).toBeGreaterThan(SMALLEST);
  }
  return { blocked: last.blockedByBudget === true, items: pages.flatMap(itemsOf) };
}

const pathsOf = (items: unknown[]) => items.map((item) => (item as { path: string }).path);

describe('paging at the smallest budget', () => {
  it('list_dir, search_files and search_text see each file once', async () => {
    type Found = { path: string };
    const listed = await follow<Paged & { entries: Found[] }>(
      'list_dir',
      { path: 'items' },
      (page) => page.entries,
    );
    expect(listed.blocked).toBe(false);
    expect(new Set(pathsOf(listed.items)).size).toBe(FILES);
    const named = await follow<Paged & { matches: Found[] }>(
      'search_files',
      { patterns: 'file-*.txt' },
      (page) => page.matches,
    );
    expect(new Set(pathsOf(named.items)).size).toBe(FILES);
    expect(pathsOf(named.items)).toHaveLength(FILES);
    const text = await follow<Paged & { matches: Found[] }>(
      'search_text',
      { pattern: 'needle', path: 'items' },
      (page) => page.matches,
    );
    expect(pathsOf(text.items)).toHaveLength(FILES);
    expect(new Set(pathsOf(text.items)).size).toBe(FILES);
  });

  it('read_file stops at a line larger than the budget with no cursor of its own', async () => {
    const first = await fx.ok<Paged & { content: string }>('read_file', {
      path: 'long-line.txt',
      maxTokens: SMALLEST,
    });
    expect(first.content).toBe('short\n');
    const blocked = await fx.ok<Paged>('read_file', {
      path: 'long-line.txt',
      maxTokens: SMALLEST,
      cursor: first.nextCursor,
    });
    expect(blocked).toMatchObject({ truncated: true, blockedByBudget: true });
    expect(blocked.nextCursor).toBeUndefined();
    const raised = await fx.ok<Paged & { content: string }>('read_file', {
      path: 'long-line.txt',
      maxTokens: blocked.minimumRequiredBytes,
      cursor: first.nextCursor,
    });
    expect(raised.content).toBe(`${'x'.repeat(1000)}\n`);
  });
});
