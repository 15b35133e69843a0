import { CHEAP_TO_RANK, NEWEST_FIRST_NOTE } from '@toolmesh/core';
import { everyPage } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MemoryFixture, memoryFixture } from './fixture.js';

type Hit = { body: string; score: number; via: string[] };
type Page = { hits: Hit[]; note?: string; truncated: boolean; nextCursor?: string };

/** Enough facts that a word in half of them is costly to rank by (CHEAP_TO_RANK and over). */
const FACTS = 2 * CHEAP_TO_RANK + 400;

/**
 * Fact n of alpha: "cluster" in the even ones, "queue" in the odd ones, both in every hundredth,
 * "rollback" in one of seven (too few to be common).
 */
function factNumber(n: number): string {
  const place = n % 100 === 0 ? 'the cluster and the queue' : n % 2 === 0 ? 'the cluster' : 'the queue';
  return `Deploy step ${n} runs on ${place}${n % 7 === 0 ? ' with rollback' : ''}.`;
}
const newestFirst = (test: (body: string) => boolean) =>
  Array.from({ length: FACTS }, (_, k) => factNumber(FACTS - 1 - k)).filter(test);
const has = (word: string) => (body: string) => body.includes(word);

let m: MemoryFixture;
beforeAll(async () => {
  m = await memoryFixture();
  const alpha = { workspace: 'alpha', identity: 'tester' };
  const beta = { workspace: 'beta', identity: 'tester' };
  m.engine.store.db.transaction(() => {
    for (let n = 0; n < FACTS; n++) {
      m.engine.store.propose(alpha, { kind: 'fact', domain: 'ops', body: factNumber(n) });
      // Matches of another workspace among the newest, for the reader to pass over.
      if (n % 10 === 0) {
        m.engine.store.propose(beta, {
          kind: 'fact',
          domain: 'ops',
          body: `Beta deploy ${n} on the cluster and the queue.`,
        });
      }
    }
  })();
});
afterAll(() => m.close());

/** search_memory in keyword mode over alpha, without hot items. */
const keywordSearch = (args: Record<string, unknown>) =>
  m.ok<Page>('search_memory', { workspace_id: 'alpha', mode: 'keyword', include_hot: false, ...args });

describe('search_memory keyword when every word is common', () => {
  it('lists the newest facts with every word first, then those with any, says so, and pages cleanly', async () => {
    const pages = await everyPage(keywordSearch, { query: 'cluster queue', limit: 40, maxTokens: 1500 });
    expect(pages.length).toBeGreaterThan(3);
    for (const page of pages) expect(page.note).toBe(NEWEST_FIRST_NOTE);
    const bodies = pages.flatMap((page) => page.hits.map((hit) => hit.body));
    const both = newestFirst((body) => has('cluster')(body) && has('queue')(body));
    expect(both).toHaveLength(FACTS / 100);
    const either = newestFirst((body) => !both.includes(body));
    expect(bodies).toEqual([...both, ...either].slice(0, 40));
    expect(new Set(bodies).size).toBe(40);
    expect(pages.flatMap((page) => page.hits.map((hit) => hit.score))).toEqual(bodies.map(() => 0));
  });

  it('holds every word in every hit while enough facts have them all, one word or several', async () => {
    const out = await keywordSearch({ query: 'cluster deploy', limit: 30, maxTokens: 64000 });
    expect(out.note).toBe(NEWEST_FIRST_NOTE);
    expect(out.hits.map((hit) => hit.body)).toEqual(newestFirst(has('cluster')).slice(0, 30));
    const one = await keywordSearch({ query: 'queue', limit: 5 });
    expect(one.note).toBe(NEWEST_FIRST_NOTE);
    expect(one.hits.map((hit) => hit.body)).toEqual(newestFirst(has('queue')).slice(0, 5));
  });

  it('still ranks by BM25 when a rarer word is in the query', async () => {
    const out = await keywordSearch({ query: 'rollback cluster', limit: 30, maxTokens: 64000 });
    expect(out.note).toBeUndefined();
    expect(out.hits).toHaveLength(30);
    for (const hit of out.hits) {
      expect(hit.body).toContain('rollback');
      expect(hit.score).toBeGreaterThan(0);
    }
    const scores = out.hits.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });
});
