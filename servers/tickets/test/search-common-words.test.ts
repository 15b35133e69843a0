import { CHEAP_TO_RANK, NEWEST_FIRST_NOTE } from '@toolmesh/core';
import { everyPage } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TicketsFixture, ticketsFixture } from './fixture.js';

type Hit = { ticket: { id: string; title: string }; score: number };
type Page = { hits: Hit[]; note?: string; truncated: boolean; nextCursor?: string };

/** Enough tickets that a word in most of them is costly to rank by (CHEAP_TO_RANK and over). */
const TICKETS = 2 * CHEAP_TO_RANK + 400;

/** Ticket n (T-(n+1)): "deploy" in every one, "cluster" in four of five, "rollback" in a few. */
function ticketNumber(n: number) {
  return {
    title: `deploy step ${n}`,
    description:
      n % 5 === 0 ? 'nothing else to say' : `on the cluster${n % 7 === 0 ? ' with a rollback' : ''}`,
  };
}
const holds = (n: number, words: string[]) =>
  words.every((word) => `${ticketNumber(n).title} ${ticketNumber(n).description}`.includes(word));
const numbersNewestFirst = (words: string[]) =>
  Array.from({ length: TICKETS }, (_, k) => TICKETS - 1 - k).filter((n) => holds(n, words));
const ref = (n: number) => `T-${n + 1}`;

let fx: TicketsFixture;
beforeAll(async () => {
  fx = await ticketsFixture();
  for (let first = 0; first < TICKETS; first += 200) {
    const batch = Array.from({ length: 200 }, (_, k) => ticketNumber(first + k));
    fx.store.create({ workspace: 'alpha', identity: 'tester' }, batch);
  }
  fx.store.create({ workspace: 'beta', identity: 'tester' }, [
    { title: 'deploy cluster', description: 'deploy the cluster' },
    { title: 'cluster notes', description: 'deploy later' },
  ]);
});
afterAll(() => fx.close());

describe('search_tickets when every word is common', () => {
  it('returns the newest tickets holding every word, says so, and pages without skipping or repeating', async () => {
    const pages = await everyPage((args) => fx.ok<Page>('search_tickets', args), {
      workspace_id: 'alpha',
      query: 'deploy cluster',
      limit: 120,
      maxTokens: 2000,
    });
    expect(pages.length).toBeGreaterThan(3);
    for (const page of pages) expect(page.note).toBe(NEWEST_FIRST_NOTE);
    const ids = pages.flatMap((page) => page.hits.map((hit) => hit.ticket.id));
    expect(ids).toEqual(numbersNewestFirst(['deploy', 'cluster']).slice(0, 120).map(ref));
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages.flatMap((page) => page.hits.map((hit) => hit.score))).toEqual(ids.map(() => 0));
    const text = await fx.call('search_tickets', {
      workspace_id: 'alpha',
      query: 'deploy cluster',
      limit: 2,
    });
    expect(JSON.stringify(text.content)).toContain(NEWEST_FIRST_NOTE);
  });

  it('still ranks by BM25 when a rarer word is in the query, with the common ones filtering', async () => {
    const out = await fx.ok<Page>('search_tickets', {
      workspace_id: 'alpha',
      query: 'rollback cluster deploy',
      maxTokens: 64000,
    });
    expect(out.note).toBeUndefined();
    const expected = numbersNewestFirst(['rollback', 'cluster', 'deploy']);
    expect(out.hits).toHaveLength(50);
    for (const hit of out.hits) {
      expect(hit.score).toBeGreaterThan(0);
      expect(expected.map(ref)).toContain(hit.ticket.id);
    }
    const scores = out.hits.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('ranks a small workspace by every word, common or not', async () => {
    const out = await fx.ok<Page>('search_tickets', { workspace_id: 'beta', query: 'deploy cluster' });
    expect(out.note).toBeUndefined();
    expect(out.hits.map((hit) => hit.ticket.id)).toEqual(['T-1', 'T-2']);
    expect(out.hits[0]?.score).toBeGreaterThan(0);
  });
});
