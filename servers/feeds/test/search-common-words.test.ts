import { CHEAP_TO_RANK, NEWEST_FIRST_NOTE } from '@toolmesh/core';
import { everyPage } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParsedEntry } from '../src/feeds/parse.js';
import { type FeedsFixture, feedsFixture } from './fixture.js';

type Hit = { article: { id: number; title: string; feedId: number }; score: number };
type Page = { hits: Hit[]; note?: string; truncated: boolean; nextCursor?: string };

/** Per feed; two feeds, so "ships" (every other article) is in CHEAP_TO_RANK of them and in half. */
const PER_FEED = CHEAP_TO_RANK;

/** Article n: "release note" in every one, "ships" in the even ones, "waits" in the odd ones. */
function entry(n: number): ParsedEntry {
  return {
    guid: `article-${n}`,
    title: `Release note ${n}`,
    contentHtml: `<p>The service ${n % 2 === 0 ? 'ships' : 'waits'} today.</p>`,
    summaryHtml: '',
  };
}

let f: FeedsFixture;
beforeAll(async () => {
  f = await feedsFixture();
  const { store } = f.reader;
  for (const feed of [0, 1]) {
    const added = store.addFeed({ url: `https://feed${feed}.example.com/rss` });
    const entries = Array.from({ length: PER_FEED }, (_, k) => entry(feed * PER_FEED + k));
    const fetched = {
      etag: null,
      lastModified: null,
      title: `Feed ${feed}`,
      siteUrl: null,
      ttlMinutes: null,
    };
    store.recordSuccess(added.id, fetched, entries, added.url);
  }
});
afterAll(() => f.close());

/** The newest article ids holding every word, read with LIKE: an oracle apart from FTS5. */
function newestHolding(words: string[], feedId?: number): number[] {
  const like = words.map(() => "(' ' || title || ' ' || content || ' ') LIKE ?").join(' AND ');
  return f.reader.store.db
    .prepare(`SELECT id FROM articles WHERE ${like} ${feedId ? 'AND feed_id = ?' : ''} ORDER BY id DESC`)
    .pluck()
    .all(...words.map((word) => `% ${word} %`), ...(feedId ? [feedId] : [])) as number[];
}

describe('search_articles when every word is common', () => {
  it('returns the newest articles holding every word, says so, and pages without skipping or repeating', async () => {
    const pages = await everyPage((args) => f.ok<Page>('search_articles', args), {
      query: 'release ships',
      limit: 60,
      maxTokens: 1500,
    });
    expect(pages.length).toBeGreaterThan(3);
    for (const page of pages) expect(page.note).toBe(NEWEST_FIRST_NOTE);
    const ids = pages.flatMap((page) => page.hits.map((hit) => hit.article.id));
    expect(ids).toEqual(newestHolding(['Release', 'ships']).slice(0, 60));
    expect(pages.flatMap((page) => page.hits.map((hit) => hit.score))).toEqual(ids.map(() => 0));
  });

  it('reads one feed newest first when asked', async () => {
    const out = await f.ok<Page>('search_articles', { query: 'release waits', feed_id: 1, limit: 5 });
    expect(out.note).toBe(NEWEST_FIRST_NOTE);
    expect(out.hits.map((hit) => hit.article.id)).toEqual(newestHolding(['Release', 'waits'], 1).slice(0, 5));
  });

  it('still ranks by BM25 when a rarer word is in the query', async () => {
    const out = await f.ok<Page>('search_articles', { query: 'release note 17' });
    expect(out.note).toBeUndefined();
    expect(out.hits.map((hit) => hit.article.title)).toEqual(['Release note 17']);
    expect(out.hits[0]?.score).toBeGreaterThan(0);
  });
});
