import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dedupKey, normalizeLink } from '../src/feeds/dedup.js';
import { parseFeedDocument } from '../src/feeds/parse.js';
import { FeedStore } from '../src/feeds/store.js';
import { tempDir } from './fixture.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const fetched = {
  etag: '"v1"',
  lastModified: 'Tue, 05 Mar 2024 09:30:00 GMT',
  title: 'T',
  siteUrl: null,
  ttlMinutes: null,
};

let dir: string;
let store: FeedStore;
beforeEach(() => {
  dir = tempDir();
  store = new FeedStore(path.join(dir, 'feeds.db'));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('dedup keys', () => {
  it('prefer the guid, then the link with scheme and host normalised, then title and date', () => {
    expect(dedupKey({ guid: 'g', link: 'https://x/1', title: 't', contentHtml: '', summaryHtml: '' })).toBe(
      'id:g',
    );
    expect(normalizeLink('HTTP://Old.Example.COM:80/news/Cafe?a=1#top')).toBe(
      '//old.example.com/news/Cafe?a=1',
    );
    expect(normalizeLink('https://old.example.com/news/Cafe?a=1')).toBe('//old.example.com/news/Cafe?a=1');
    expect(normalizeLink('https://x.example:8443/a')).toBe('//x.example:8443/a');
    const dated = {
      title: 'Same',
      publishedAt: '2024-01-01T00:00:00.000Z',
      contentHtml: '',
      summaryHtml: '',
    };
    expect(dedupKey(dated)).toBe(dedupKey({ ...dated, contentHtml: 'changed body' }));
    expect(dedupKey(dated)).not.toBe(dedupKey({ ...dated, publishedAt: '2024-01-02T00:00:00.000Z' }));
  });
});

describe('FeedStore', () => {
  it('stores a fetch, and a re-fetch of the same document adds and updates nothing', () => {
    const feed = store.addFeed({ url: 'https://blog.example.com/feed.xml' });
    const entries = parseFeedDocument(fixture('rss20.xml')).entries;
    expect(store.recordSuccess(feed.id, fetched, entries, feed.url)).toEqual({ new: 2, updated: 0 });
    expect(store.recordSuccess(feed.id, fetched, entries, feed.url)).toEqual({ new: 0, updated: 0 });
    const stored = store.feed(feed.id);
    expect(stored).toMatchObject({ title: 'T', etag: '"v1"', articles: 2, unread: 2, errorCount: 0 });
    const article = store.article(store.listArticles({}, { limit: 10 })[0]!.id);
    expect(article.content).toBe(
      'We compared **three** parsers.\n\nRead [more](https://blog.example.com/more).',
    );
    expect(article.excerpt).toBe('How we picked a feed parser.');
  });

  it('updates a changed entry in place and keeps its read and saved marks', () => {
    const feed = store.addFeed({ url: 'https://blog.example.com/feed.xml' });
    const entries = parseFeedDocument(fixture('rss20.xml')).entries;
    store.recordSuccess(feed.id, fetched, entries, feed.url);
    const [first] = store.listArticles({}, { limit: 1 });
    store.setRead(first!.id, true);
    store.setSaved(first!.id, true);
    const edited = entries.map((e, i) => (i === 0 ? { ...e, title: 'Shipping the parser (updated)' } : e));
    expect(store.recordSuccess(feed.id, fetched, edited, feed.url)).toEqual({ new: 0, updated: 1 });
    const after = store.article(first!.id);
    expect(after).toMatchObject({ title: 'Shipping the parser (updated)', read: true, saved: true });
    expect(store.countArticles({})).toBe(2);
    expect(store.search('updated', { limit: 5 }).hits.map((h) => h.article.id)).toEqual([first!.id]);
  });

  it('dedups guid-less entries by normalised link', () => {
    const feed = store.addFeed({ url: 'http://old.example.com/rss' });
    const entries = parseFeedDocument(fixture('rss091.xml')).entries;
    store.recordSuccess(feed.id, fetched, entries, feed.url);
    const moved = entries.map((e) => ({ ...e, link: e.link?.replace(/^http:/i, 'https:').toLowerCase() }));
    expect(store.recordSuccess(feed.id, fetched, moved, feed.url)).toEqual({ new: 0, updated: 2 });
    expect(store.countArticles({ feedId: feed.id })).toBe(2);
  });

  it('filters, counts and pages articles newest first; undated entries keep feed order', () => {
    const a = store.addFeed({ url: 'https://a.example/feed' });
    const b = store.addFeed({ url: 'https://b.example/feed' });
    store.recordSuccess(
      a.id,
      fetched,
      parseFeedDocument(fixture('rss20.xml')).entries,
      a.url,
      Date.UTC(2024, 5),
    );
    store.recordSuccess(
      b.id,
      fetched,
      parseFeedDocument(fixture('rss091.xml')).entries,
      b.url,
      Date.UTC(2024, 5),
    );
    const all = store.listArticles({}, { limit: 10 });
    expect(all.map((x) => x.title)).toEqual([
      'Café opens downtown',
      'Library extends hours',
      'Shipping the parser',
      'Zero-downtime migrations',
    ]);
    store.setSaved(all[2]!.id, true);
    expect(store.listArticles({ saved: true }, { limit: 10 }).map((x) => x.id)).toEqual([all[2]!.id]);
    expect(store.countArticles({ feedId: a.id, since: Date.UTC(2024, 2, 5) })).toBe(1);
    const marked = store.markRead([all[0]!.id, all[0]!.id, all[1]!.id, 999], true);
    expect(marked).toEqual({ changed: [all[0]!.id, all[1]!.id], unchanged: [], unknown: [999] });
    expect(store.unreadAfter(undefined, 10).map((x) => x.id)).toEqual([all[2]!.id, all[3]!.id]);
    const firstPage = store.unreadAfter(undefined, 1)[0]!;
    expect(store.unreadAfter({ sortAt: firstPage.sortAt, id: firstPage.id }, 10).map((x) => x.id)).toEqual([
      all[3]!.id,
    ]);
  });

  it('removes a feed with its articles and their search entries', () => {
    const feed = store.addFeed({ url: 'https://blog.example.com/feed.xml' });
    store.recordSuccess(feed.id, fetched, parseFeedDocument(fixture('rss20.xml')).entries, feed.url);
    expect(store.search('parsers', { limit: 5 }).hits).toHaveLength(1);
    store.removeFeed(feed.id);
    expect(store.search('parsers', { limit: 5 }).hits).toHaveLength(0);
    expect(store.db.prepare('SELECT count(*) AS n FROM articles_fts').get()).toEqual({ n: 0 });
    expect(() => store.feed(feed.id)).toThrow(/There is no feed/);
    expect(() => store.addFeed({ url: 'https://x/1' }) && store.addFeed({ url: 'https://x/1' })).toThrow(
      /already subscribed/,
    );
  });

  it('searches with FTS5 syntax taken as words, and refuses a query with none', () => {
    const feed = store.addFeed({ url: 'https://blog.example.com/feed.xml' });
    store.recordSuccess(feed.id, fetched, parseFeedDocument(fixture('rss20.xml')).entries, feed.url);
    expect(store.search('migrations* -contract:', { limit: 5 }).hits[0]?.article.title).toBe(
      'Zero-downtime migrations',
    );
    expect(() => store.search('*:-', { limit: 5 }).hits).toThrow(/no words/);
  });
});
