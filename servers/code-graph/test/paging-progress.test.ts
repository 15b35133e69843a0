import { type ConnectedClient, connectInMemory, everyPage, resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeGraph } from '../src/graph/code-graph.js';
import { createCodeGraphServer } from '../src/server.js';
import { copyFixture, type FixtureCopy, indexedGraph, quietLog } from './fixture-graph.js';

// Every page at the smallest budget either moves forward or says what budget it needs.
const SMALLEST = 256;
const MOST_PAGES = 200;

interface Paged {
  truncated: boolean;
  nextCursor?: string;
  blockedByBudget?: boolean;
  minimumRequiredBytes?: number;
}

let copy: FixtureCopy;
let graph: CodeGraph;
let client: ConnectedClient;

beforeAll(async () => {
  copy = copyFixture('ts-shop');
  graph = await indexedGraph(copy);
  client = await connectInMemory(createCodeGraphServer({ graph, log: quietLog }));
});
afterAll(async () => {
  await client.close();
  await graph.close();
  copy.remove();
});

async function ok<T>(name: string, args: Record<string, unknown>): Promise<T> {
  const result = await client.call(name, args);
  if (result.isError) throw new Error(`${name}: ${resultText(result)}`);
  return result.structuredContent as T;
}

/** Follows cursors at the smallest budget and at a roomy one; both list the same items once each. */
async function follow<T extends Paged>(
  tool: string,
  args: Record<string, unknown>,
  itemsOf: (page: T) => unknown[],
) {
  const all = (await ok<T>(tool, { ...args, maxTokens: 64000 })) as T;
  expect(all.truncated).toBe(false);
  const expected = itemsOf(all).map((item) => JSON.stringify(item));
  expect(expected.length).toBeGreaterThan(1);
  const pages = await everyPage((a) => ok<T>(tool, a), { ...args, maxTokens: SMALLEST }, MOST_PAGES);
  const last = pages.at(-1) as T;
  for (const page of pages.slice(0, -1)) expect(itemsOf(page).length).toBeGreaterThan(0);
  const seen = pages.flatMap(itemsOf).map((item) => JSON.stringify(item));
  if (last.blockedByBudget) {
    expect(last.nextCursor).toBeUndefined();
    expect(last.minimumRequiredBytes).toBeGreaterThan(SMALLEST);
    expect(seen).toEqual(expected.slice(0, seen.length));
  } else {
    expect(seen).toEqual(expected);
  }
}

describe('paging at the smallest budget', () => {
  it('search_code, repo_map and code_callers end: each item once, or blocked', async () => {
    await follow<Paged & { results: unknown[] }>(
      'search_code',
      { query: 'money price basket', limit: 40 },
      (page) => page.results,
    );
    await follow<Paged & { files: unknown[] }>('repo_map', {}, (page) => page.files);
    await follow<Paged & { callers: unknown[] }>(
      'code_callers',
      { symbol: 'Money.multiplyByRate' },
      (page) => page.callers,
    );
  });
});
