import { everyPage } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FeedServer, largeFeed, startFeedServer } from './feed-server.js';
import { type FeedsFixture, feedsFixture } from './fixture.js';

// Every page at the smallest budget either moves forward or says what budget it needs.
const SMALLEST = 256;
const FEEDS = 30;
const ARTICLES = 40;

interface Paged {
  truncated: boolean;
  nextCursor?: string;
  blockedByBudget?: boolean;
  minimumRequiredBytes?: number;
}

let server: FeedServer;
let f: FeedsFixture;

beforeAll(async () => {
  server = await startFeedServer();
  f = await feedsFixture();
  for (let index = 0; index < FEEDS; index++) {
    server.set(`/paging/${index}.xml`, largeFeed(index === 0 ? ARTICLES : 1, `feed${index}`));
    await f.ok('add_feed', { url: `${server.url}/paging/${index}.xml` });
  }
});
afterAll(async () => {
  await f.close();
  await server.close();
});

/** Follows cursors; the pages end with every item once, or with a blocked page and no cursor. */
async function follow<T extends Paged>(
  tool: string,
  args: Record<string, unknown>,
  itemsOf: (page: T) => unknown[],
) {
  const pages = await everyPage(
    (a) => f.ok<T>(tool, a),
    { ...args, maxTokens: SMALLEST },
    ARTICLES + FEEDS + 1,
  );
  const last = pages.at(-1) as T;
  for (const page of pages.slice(0, -1)) expect(itemsOf(page).length).toBeGreaterThan(0);
  if (last.blockedByBudget) {
    expect(last.nextCursor).toBeUndefined();
    expect(last.minimumRequiredBytes).toBeGreaterThan(SMALLEST);
    const raised = await f.ok<T>(tool, { ...args, maxTokens: last.minimumRequiredBytes });
    expect(raised.blockedByBudget).toBeUndefined();
  }
  return { blocked: last.blockedByBudget === true, items: pages.flatMap(itemsOf) };
}

const idsOf = (items: unknown[]) => items.map((item) => (item as { id: number }).id);

describe('paging at the smallest budget', () => {
  it('list_feeds ends: each feed once, or blocked with the size it needs', async () => {
    const { blocked, items } = await follow<Paged & { feeds: unknown[] }>(
      'list_feeds',
      {},
      (page) => page.feeds,
    );
    const ids = idsOf(items);
    expect(new Set(ids).size).toBe(ids.length);
    if (!blocked) expect(ids).toHaveLength(FEEDS);
  });

  it('list_articles and search_articles end within a bound', async () => {
    const articles = await follow<Paged & { articles: unknown[] }>(
      'list_articles',
      {},
      (page) => page.articles,
    );
    const ids = idsOf(articles.items);
    expect(new Set(ids).size).toBe(ids.length);
    if (!articles.blocked) expect(ids).toHaveLength(ARTICLES + FEEDS - 1);
    const search = await follow<Paged & { hits: { article: { id: number } }[] }>(
      'search_articles',
      { query: 'polite polling' },
      (page) => page.hits,
    );
    const hitIds = search.items.map((hit) => (hit as { article: { id: number } }).article.id);
    expect(new Set(hitIds).size).toBe(hitIds.length);
  });
});
