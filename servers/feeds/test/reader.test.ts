import { rmSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '@toolmesh/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { failureDelayMs } from '../src/feeds/backoff.js';
import { FeedFetcher } from '../src/feeds/fetcher.js';
import { FeedReader } from '../src/feeds/reader.js';
import { FeedStore } from '../src/feeds/store.js';
import { type FeedServer, largeFeed, startFeedServer } from './feed-server.js';
import { tempDir } from './fixture.js';

let server: FeedServer;
let dir: string;
let reader: FeedReader;
const log = createLogger({ level: 'error', scope: 'test' });

function newReader(options: { timeoutMs?: number; schedule?: { everyMs: number; firstMs: number } } = {}) {
  return new FeedReader({
    store: new FeedStore(path.join(dir, `feeds-${Math.random()}.db`)),
    fetcher: new FeedFetcher({
      allowPrivateNetwork: true,
      timeoutMs: options.timeoutMs ?? 2000,
      maxBytes: 4 * 2 ** 20,
    }),
    concurrency: 4,
    log,
    ...(options.schedule && { schedule: options.schedule }),
  });
}

beforeAll(async () => {
  server = await startFeedServer();
});
afterAll(() => server.close());
beforeEach(() => {
  dir = tempDir();
  reader = newReader();
});
afterEach(async () => {
  await reader.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('FeedReader.subscribe', () => {
  it('adds a feed of every format with its articles', async () => {
    const formats = [
      'rss091.xml',
      'rss092.xml',
      'rdf10.xml',
      'rss20.xml',
      'atom.xml',
      'feed.json',
      'latin1.xml',
    ];
    const counts = [];
    for (const file of formats) {
      const { feed, counts: c } = await reader.subscribe(`${server.url}/fixtures/${file}`);
      counts.push([feed.title, c.new]);
    }
    expect(counts).toEqual([
      ['Netscape-era News', 2],
      ['RSS 0.92 Radio', 2],
      ['RDF Site Summary', 2],
      ['Example Engineering Blog', 2],
      ['Atom Notes', 2],
      ['JSON Journal', 2],
      ['Revue française', 1],
    ]);
    expect(reader.store.countArticles({ unread: true })).toBe(13);
  });

  it('finds the feed a web page names with <link rel="alternate">', async () => {
    const added = await reader.subscribe(`${server.url}/fixtures/page-with-feed.html`);
    expect(added.discoveredFrom).toBe(`${server.url}/fixtures/page-with-feed.html`);
    expect(added.feed.url).toBe(`${server.url}/fixtures/rss20.xml`);
    expect(added.counts.new).toBe(2);
  });

  it('refuses a page without a feed, a second subscription and an unreachable address, adding nothing', async () => {
    await expect(reader.subscribe(`${server.url}/fixtures/not-a-feed.html`)).rejects.toThrow(
      /is not a feed \(the address serves an HTML page, not a feed\) and names none/,
    );
    await reader.subscribe(`${server.url}/fixtures/atom.xml`);
    await expect(reader.subscribe(`${server.url}/fixtures/atom.xml`)).rejects.toThrow(
      /already subscribed as feed 1/,
    );
    await expect(reader.subscribe(`${server.url}/status/404`)).rejects.toThrow(/Could not fetch .*HTTP 404/);
    await expect(reader.subscribe('file:///etc/passwd')).rejects.toThrow(/only http and https/);
    expect(reader.store.listFeeds()).toHaveLength(1);
  });
});

describe('FeedReader.refresh', () => {
  it('gives each bad feed its own clear error and backoff, and reads the good ones', async () => {
    // Bound only to end a fetch that hangs: on a loaded machine the 4 MiB of /huge took over 10 s
    // to reach its cap, and was then reported as a time-out instead of the cap.
    const patient = newReader({ timeoutMs: 60_000 });
    const paths = {
      good: '/fixtures/rss20.xml',
      malformed: '/fixtures/malformed.xml',
      html: '/fixtures/not-a-feed.html',
      missing: '/status/404',
      broken: '/status/500',
      bomb: '/fixtures/bomb.xml',
      huge: '/huge',
      large: '/large/10000.xml',
    };
    for (const [name, p] of Object.entries(paths))
      patient.store.addFeed({ url: `${server.url}${p}`, title: name });
    const progress: number[] = [];
    const results = await patient.refresh({ onProgress: (done) => void progress.push(done) });
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const byTitle = Object.fromEntries(results.map((r) => [r.title, r]));
    expect(byTitle.good).toMatchObject({ outcome: 'updated', new: 2, updated: 0 });
    expect(byTitle.large).toMatchObject({ outcome: 'updated', new: 10_000 });
    expect(byTitle.malformed?.error).toMatch(/not a readable RSS, Atom or JSON feed/);
    expect(byTitle.html?.error).toMatch(/serves an HTML page/);
    expect(byTitle.missing?.error).toMatch(/HTTP 404/);
    expect(byTitle.broken?.error).toMatch(/HTTP 500/);
    expect(byTitle.bomb?.error).toMatch(/declares XML entities/);
    expect(byTitle.huge?.error).toMatch(/larger than the 4 MiB cap/);
    for (const feed of patient.store.listFeeds().filter((f) => !['good', 'large'].includes(f.title))) {
      expect(feed).toMatchObject({ errorCount: 1, lastError: expect.any(String) });
      expect(Date.parse(feed.nextFetchAt ?? '') - Date.now()).toBeGreaterThan(29 * 60_000);
    }
    await patient.close();
  });

  it('gives up on a server that never answers at the deadline and backs the feed off', async () => {
    const quick = newReader({ timeoutMs: 300 });
    quick.store.addFeed({ url: `${server.url}/hang`, title: 'hang' });
    const [result] = await quick.refresh();
    expect(result?.error).toMatch(/no complete answer within 0.3 s/);
    expect(quick.store.listFeeds()[0]).toMatchObject({ errorCount: 1 });
    await quick.close();
  });

  it('sends the stored validators, takes the 304, and dedups a changed document on re-fetch', async () => {
    server.set('/mutable.xml', largeFeed(3, 'm'));
    const { feed } = await reader.subscribe(`${server.url}/mutable.xml`);
    const [first] = reader.store.listArticles({}, { limit: 1 });
    reader.store.setRead(first!.id, true);
    reader.store.setSaved(first!.id, true);
    expect((await reader.refresh())[0]).toMatchObject({ outcome: 'not_modified', new: 0 });
    const seen = server.requests.filter((r) => r.path === '/mutable.xml').at(-1);
    expect(seen?.headers['if-none-match']).toBe(reader.store.feed(feed.id).etag);
    server.set(
      '/mutable.xml',
      largeFeed(4, 'm').replace('<title>m 2</title>', '<title>m 2 (edited)</title>'),
    );
    expect((await reader.refresh())[0]).toMatchObject({ outcome: 'updated', new: 1, updated: 1 });
    expect(reader.store.countArticles({ feedId: feed.id })).toBe(4);
    expect(reader.store.article(first!.id)).toMatchObject({ read: true, saved: true });
  });

  it('skips a feed whose server asked to wait, even on request, and backs off doubling', async () => {
    reader.store.addFeed({ url: `${server.url}/retry-after/3600`, title: 'slow' });
    expect((await reader.refresh())[0]).toMatchObject({
      outcome: 'failed',
      error: expect.stringMatching(/429/),
    });
    const hits = server.hits('/retry-after/3600');
    expect((await reader.refresh())[0]).toMatchObject({
      outcome: 'skipped',
      error: expect.stringMatching(/Retry-After/),
    });
    expect(server.hits('/retry-after/3600')).toBe(hits);
    expect(failureDelayMs(1, 30)).toBe(30 * 60_000);
    expect(failureDelayMs(3, 30)).toBe(120 * 60_000);
    expect(failureDelayMs(20, 30)).toBe(24 * 3600_000);
    expect(failureDelayMs(1, 30, 2 * 3600_000)).toBe(2 * 3600_000);
  });

  it('follows a permanent move to the new address, unless another feed already has it', async () => {
    const moved = reader.store.addFeed({
      url: `${server.url}/move/301?to=${encodeURIComponent('/fixtures/rdf10.xml')}`,
    });
    const kept = reader.store.addFeed({
      url: `${server.url}/move/308?to=${encodeURIComponent('/fixtures/rdf10.xml')}&again`,
    });
    const temporary = reader.store.addFeed({
      url: `${server.url}/move/302?to=${encodeURIComponent('/fixtures/atom.xml')}`,
    });
    expect((await reader.refresh({ feedIds: [moved.id] }))[0]?.movedTo).toBe(
      `${server.url}/fixtures/rdf10.xml`,
    );
    const others = await reader.refresh({ feedIds: [kept.id, temporary.id] });
    expect(others.map((r) => [r.outcome, r.movedTo])).toEqual([
      ['updated', undefined],
      ['updated', undefined],
    ]);
    expect(reader.store.feed(moved.id).url).toBe(`${server.url}/fixtures/rdf10.xml`);
    expect(reader.store.feed(kept.id).url).toBe(kept.url);
    expect(reader.store.feed(temporary.id).url).toBe(temporary.url);
    const hits = server.hits('/move/301');
    expect((await reader.refresh({ feedIds: [moved.id] }))[0]?.outcome).toBe('not_modified');
    expect(server.hits('/move/301')).toBe(hits);
  });

  it('reports a feed removed while it was being fetched, and stores nothing for it', async () => {
    const feed = reader.store.addFeed({ url: `${server.url}/slow/removed` });
    const refreshing = reader.refresh();
    await new Promise((resolve) => setTimeout(resolve, 30));
    reader.store.removeFeed(feed.id);
    expect(await refreshing).toEqual([
      expect.objectContaining({
        outcome: 'failed',
        error: 'the feed was removed while it was being fetched',
      }),
    ]);
    expect(reader.store.countArticles({})).toBe(0);
  });

  it('disables a feed its publisher says is gone (410)', async () => {
    const feed = reader.store.addFeed({ url: `${server.url}/status/410` });
    const [result] = await reader.refresh();
    expect(result?.error).toMatch(/^HTTP 410 gone .*it is disabled; set_feed_enabled turns it back on$/);
    expect(reader.store.feed(feed.id)).toMatchObject({ enabled: false, nextFetchAt: null });
    expect(await reader.refresh()).toEqual([]);
  });

  it('fetches at most `concurrency` feeds at once', async () => {
    for (let n = 0; n < 12; n++) reader.store.addFeed({ url: `${server.url}/slow/${n}` });
    const results = await reader.refresh();
    expect(results.map((r) => r.outcome)).toEqual(Array(12).fill('updated'));
    expect(server.peakConcurrency()).toBe(4);
  });

  it('fetches a feed once when two refreshes ask for it at the same time', async () => {
    reader.store.addFeed({ url: `${server.url}/fixtures/feed.json?once` });
    const before = server.hits('/fixtures/feed.json');
    const [a, b] = await Promise.all([reader.refresh(), reader.refresh()]);
    expect(a).toEqual(b);
    expect(server.hits('/fixtures/feed.json')).toBe(before + 1);
  });
});

describe('the schedule', () => {
  it('fetches due feeds in the background, never before their interval, and stops on close', async () => {
    const scheduled = newReader({ schedule: { everyMs: 50, firstMs: 10 } });
    scheduled.store.addFeed({ url: `${server.url}/fixtures/atom.xml?scheduled` });
    const deadline = Date.now() + 5000;
    while (scheduled.store.countArticles({}) === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(scheduled.store.countArticles({})).toBe(2);
    const hits = server.requests.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(server.requests.length).toBe(hits);
    await scheduled.close();
  });
});
