import { everyPage, resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOTAL_COUNTED_UP_TO } from '../src/store/types.js';
import { type TicketsFixture, ticketsFixture } from './fixture.js';

type Page = {
  total: number;
  totalAtLeast: boolean;
  tickets: { id: string }[];
  truncated: boolean;
  nextCursor?: string;
};

/** More tickets than list counts; every tenth is labelled "rare". */
const TICKETS = TOTAL_COUNTED_UP_TO + 60;
const A = { workspace_id: 'alpha' };

let fx: TicketsFixture;
beforeAll(async () => {
  fx = await ticketsFixture();
  const tickets = Array.from({ length: TICKETS }, (_, n) => ({
    title: `ticket ${n}`,
    labels: n % 10 === 0 ? ['rare'] : [],
  }));
  for (let first = 0; first < TICKETS; first += 50) {
    fx.store.create({ workspace: 'alpha', identity: 'tester' }, tickets.slice(first, first + 50));
  }
});
afterAll(() => fx.close());

describe('list_tickets total', () => {
  it(`is exact up to ${TOTAL_COUNTED_UP_TO} matches, and a lower bound said as such past that`, async () => {
    const rare = await fx.ok<Page>('list_tickets', { ...A, label: 'rare', maxTokens: 256 });
    expect(rare).toMatchObject({ total: TICKETS / 10, totalAtLeast: false, truncated: true });
    const all = await fx.ok<Page>('list_tickets', { ...A, maxTokens: 256 });
    expect(all).toMatchObject({ total: TOTAL_COUNTED_UP_TO, totalAtLeast: true, truncated: true });
    const text = resultText(await fx.call('list_tickets', { ...A, maxTokens: 256 }));
    expect(text).toMatch(new RegExp(`^at least ${TOTAL_COUNTED_UP_TO} ticket\\(s\\)`));
  });

  it(`is exact, not "at least", when exactly ${TOTAL_COUNTED_UP_TO} match`, () => {
    const tickets = Array.from({ length: TOTAL_COUNTED_UP_TO }, (_, n) => ({ title: `exact ${n}` }));
    for (let first = 0; first < tickets.length; first += 50) {
      fx.store.create({ workspace: 'exact', identity: 'tester' }, tickets.slice(first, first + 50));
    }
    const { total, totalAtLeast } = fx.store.list('exact', {}, { offset: 0, limit: 10 });
    expect({ total, totalAtLeast }).toEqual({ total: TOTAL_COUNTED_UP_TO, totalAtLeast: false });
    const past = fx.store.list('alpha', { sort: 'number' }, { offset: TICKETS - 11, limit: 10 });
    expect(past).toMatchObject({ total: TICKETS, totalAtLeast: false });
  });

  it('pages through every match past the count, each page saying how many it knows of', async () => {
    const pages = await everyPage((args) => fx.ok<Page>('list_tickets', args), {
      ...A,
      sort: 'number',
      maxTokens: 16000,
    });
    const ids = pages.flatMap((page) => page.tickets.map((t) => t.id));
    expect(ids).toEqual(Array.from({ length: TICKETS }, (_, n) => `T-${n + 1}`));
    let seen = 0;
    for (const page of pages) {
      seen += page.tickets.length;
      expect(page.total).toBeGreaterThan(page.truncated ? seen : seen - 1);
      if (page.totalAtLeast) expect(page.total).toBeLessThanOrEqual(TICKETS);
      else expect(page.total).toBe(TICKETS);
    }
    expect(pages.at(-1)).toMatchObject({ total: TICKETS, totalAtLeast: false, truncated: false });
  });

  it('counts just past a window beyond the cap, and exactly at the end', () => {
    const list = (offset: number, limit: number) => {
      const { total, totalAtLeast, tickets } = fx.store.list('alpha', { sort: 'number' }, { offset, limit });
      return { total, totalAtLeast, shown: tickets.length };
    };
    expect(list(0, 10)).toEqual({ total: TOTAL_COUNTED_UP_TO, totalAtLeast: true, shown: 10 });
    expect(list(TOTAL_COUNTED_UP_TO - 5, 10)).toEqual({
      total: TOTAL_COUNTED_UP_TO + 6,
      totalAtLeast: true,
      shown: 10,
    });
    expect(list(TICKETS - 5, 10)).toEqual({ total: TICKETS, totalAtLeast: false, shown: 5 });
    expect(list(TICKETS + 5, 10)).toEqual({ total: TICKETS, totalAtLeast: false, shown: 0 });
    expect(fx.store.list('alpha', { label: 'rare' })).toMatchObject({
      total: TICKETS / 10,
      totalAtLeast: false,
    });
  });
});
