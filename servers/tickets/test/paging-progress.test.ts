import { everyPage } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TicketsFixture, ticketsFixture } from './fixture.js';

// Every page at the smallest budget either moves forward or says what budget it needs.
const SMALLEST = 256;
const TICKETS = 40;
const A = { workspace_id: 'alpha' };

interface Paged {
  truncated: boolean;
  nextCursor?: string;
  blockedByBudget?: boolean;
  minimumRequiredBytes?: number;
}

let fx: TicketsFixture;

beforeAll(async () => {
  fx = await ticketsFixture();
  await fx.ok('create_ticket', {
    ...A,
    tickets: Array.from({ length: TICKETS }, (_, index) => ({
      title: `Paging ticket ${index} about cursors`,
    })),
  });
});
afterAll(() => fx.close());

/** Follows cursors; the pages end with every item once, or with a blocked page and no cursor. */
async function follow<T extends Paged>(
  tool: string,
  args: Record<string, unknown>,
  itemsOf: (page: T) => unknown[],
) {
  const pages = await everyPage(
    (a) => fx.ok<T>(tool, a),
    { ...A, ...args, maxTokens: SMALLEST },
    TICKETS + 1,
  );
  const last = pages.at(-1) as T;
  for (const page of pages.slice(0, -1)) expect(itemsOf(page).length).toBeGreaterThan(0);
  if (last.blockedByBudget) {
    expect(last.nextCursor).toBeUndefined();
    expect(last.minimumRequiredBytes).toBeGreaterThan(SMALLEST);
    const raised = await fx.ok<T>(tool, { ...A, ...args, maxTokens: last.minimumRequiredBytes });
    expect(raised.blockedByBudget).toBeUndefined();
  }
  return { blocked: last.blockedByBudget === true, items: pages.flatMap(itemsOf) };
}

const onceEach = (ids: unknown[], blocked: boolean) => {
  expect(new Set(ids).size).toBe(ids.length);
  if (!blocked) expect(ids).toHaveLength(TICKETS);
};

describe('paging at the smallest budget', () => {
  it('list_tickets, list_ready_tickets and search_tickets end: each ticket once, or blocked', async () => {
    type Summary = { id: string };
    const listed = await follow<Paged & { tickets: Summary[] }>('list_tickets', {}, (page) => page.tickets);
    onceEach(
      listed.items.map((t) => (t as Summary).id),
      listed.blocked,
    );
    const ready = await follow<Paged & { tickets: Summary[] }>(
      'list_ready_tickets',
      {},
      (page) => page.tickets,
    );
    onceEach(
      ready.items.map((t) => (t as Summary).id),
      ready.blocked,
    );
    const found = await follow<Paged & { hits: { ticket: Summary }[] }>(
      'search_tickets',
      { query: 'paging cursors' },
      (page) => page.hits,
    );
    const foundIds = found.items.map((hit) => (hit as { ticket: Summary }).ticket.id);
    expect(new Set(foundIds).size).toBe(foundIds.length);
  });
});
