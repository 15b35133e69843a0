import { everyPage } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MemoryFixture, memoryFixture } from './fixture.js';

// Every page at the smallest budget either moves forward or says what budget it needs.
const SMALLEST = 256;
const POLICIES = 40;

interface Paged {
  truncated: boolean;
  nextCursor?: string;
  blockedByBudget?: boolean;
  minimumRequiredBytes?: number;
}

let m: MemoryFixture;

beforeAll(async () => {
  m = await memoryFixture();
  for (let index = 0; index < POLICIES; index++) {
    await m.ok('propose_policy', {
      workspace_id: 'alpha',
      statement: `Policy number ${index}: reviews name the release train`,
      domain: `domain-${index % 8}`,
    });
  }
});
afterAll(() => m.close());

/** Follows cursors; the pages end with every item once, or with a blocked page and no cursor. */
async function follow<T extends Paged>(
  tool: string,
  args: Record<string, unknown>,
  itemsOf: (page: T) => unknown[],
) {
  const pages = await everyPage((a) => m.ok<T>(tool, a), { ...args, maxTokens: SMALLEST }, POLICIES + 1);
  const last = pages.at(-1) as T;
  for (const page of pages.slice(0, -1)) expect(itemsOf(page).length).toBeGreaterThan(0);
  if (last.blockedByBudget) {
    expect(last.nextCursor).toBeUndefined();
    expect(last.minimumRequiredBytes).toBeGreaterThan(SMALLEST);
    const raised = await m.ok<T>(tool, { ...args, maxTokens: last.minimumRequiredBytes });
    expect(raised.blockedByBudget).toBeUndefined();
  }
  return { blocked: last.blockedByBudget === true, items: pages.flatMap(itemsOf) };
}

describe('paging at the smallest budget', () => {
  it('list_policies ends: each policy once, or blocked with the size it needs', async () => {
    const { blocked, items } = await follow<Paged & { policies: { id: string }[] }>(
      'list_policies',
      { workspace_id: 'alpha' },
      (page) => page.policies,
    );
    const ids = items.map((policy) => (policy as { id: string }).id);
    expect(new Set(ids).size).toBe(ids.length);
    if (!blocked) expect(ids).toHaveLength(POLICIES);
  });

  it('search_memory and list_memory_domains end within a bound', async () => {
    const search = await follow<Paged & { hits: unknown[] }>(
      'search_memory',
      { workspace_id: 'alpha', query: 'release train reviews', mode: 'keyword' },
      (page) => page.hits,
    );
    expect(search.items.length + (search.blocked ? 1 : 0)).toBeGreaterThan(0);
    const domains = await follow<Paged & { domains: { name: string }[] }>(
      'list_memory_domains',
      { workspace_id: 'alpha' },
      (page) => page.domains,
    );
    const names = domains.items.map((domain) => (domain as { name: string }).name);
    expect(new Set(names).size).toBe(names.length);
    if (!domains.blocked) expect(names.filter((name) => name.startsWith('domain-'))).toHaveLength(8);
  });
});
