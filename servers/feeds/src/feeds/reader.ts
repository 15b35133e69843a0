import { createLogger, type Logger, ToolError } from '@toolmesh/core';
import { feedLinks } from './discovery.js';
import { checkedUrl, type FeedFetcher, type FetchOutcome } from './fetcher.js';
import { opmlFeeds, renderOpml } from './opml.js';
import { FeedFormatError, type ParsedFeed, parseFeedDocument } from './parse.js';
import { FeedRefresher, type RefreshProgress, type RefreshResult } from './refresher.js';
import { FeedScheduler } from './scheduler.js';
import type { FeedStore } from './store.js';
import type { Feed, IngestCounts } from './types.js';

/** Pages link to a handful of feeds at most; trying more would let a page make us fetch anything. */
const MAX_DISCOVERED = 5;

export interface FeedReaderOptions {
  store: FeedStore;
  fetcher: FeedFetcher;
  /** Feeds fetched at once (default 6). */
  concurrency?: number;
  /** Background refresh of due feeds; off when omitted (the bin turns it on unless --no-schedule). */
  schedule?: { everyMs: number; firstMs: number };
  log?: Logger;
}

export interface Subscription {
  feed: Feed;
  /** The page add_feed was given, when the feed was found through its `<link rel="alternate">`. */
  discoveredFrom?: string;
  counts: IngestCounts;
}

/**
 * The feed reader the tools work on: subscriptions, refreshes, OPML, and the background schedule,
 * over a FeedStore and a FeedFetcher. It knows nothing of MCP.
 */
export class FeedReader {
  readonly store: FeedStore;
  readonly fetcher: FeedFetcher;
  private readonly refresher: FeedRefresher;
  private readonly scheduler: FeedScheduler | undefined;

  constructor(options: FeedReaderOptions) {
    this.store = options.store;
    this.fetcher = options.fetcher;
    const log = options.log ?? createLogger({ scope: 'feeds' });
    this.refresher = new FeedRefresher(this.store, this.fetcher, {
      concurrency: options.concurrency ?? 6,
      log,
    });
    if (options.schedule) {
      this.scheduler = new FeedScheduler((signal) => this.refreshDue(signal), { ...options.schedule, log });
      this.scheduler.start();
    }
  }

  async close(): Promise<void> {
    await this.scheduler?.stop();
    this.fetcher.close();
    this.store.close();
  }

  /** Every enabled feed (or the ones named) now, except those whose server asked to wait. */
  refresh(options: { feedIds?: readonly number[]; signal?: AbortSignal; onProgress?: RefreshProgress } = {}) {
    const feeds = options.feedIds
      ? options.feedIds.map((id) => this.store.feed(id))
      : this.store.enabledFeeds();
    return this.refresher.refreshMany(feeds, options);
  }

  /** What the schedule runs: the enabled feeds whose interval (or backoff) has passed. */
  refreshDue(signal?: AbortSignal): Promise<RefreshResult[]> {
    return this.refresher.refreshMany(this.store.dueFeeds(), { ...(signal && { signal }) });
  }

  async subscribe(
    address: string,
    options: { title?: string; intervalMinutes?: number } = {},
    signal?: AbortSignal,
  ): Promise<Subscription> {
    const url = this.validUrl(address);
    this.refuseSubscribed(url);
    const page = await this.fetchOrExplain(url, signal);
    let found: { url: string; fetched: FetchOutcome & { kind: 'fetched' }; parsed: ParsedFeed };
    try {
      found = { url, fetched: page, parsed: parseFeedDocument(page.body) };
    } catch (error) {
      if (!(error instanceof FeedFormatError)) throw error;
      found = await this.discover(url, page, error, signal);
      this.refuseSubscribed(found.url);
    }
    const feed = this.store.addFeed({
      url: found.url,
      ...(options.title !== undefined && { title: options.title }),
      ...(options.intervalMinutes !== undefined && { intervalMinutes: options.intervalMinutes }),
    });
    const counts = this.store.recordSuccess(
      feed.id,
      {
        etag: found.fetched.etag,
        lastModified: found.fetched.lastModified,
        title: found.parsed.title,
        siteUrl: found.parsed.siteUrl ?? null,
        ttlMinutes: found.parsed.ttlMinutes ?? null,
      },
      found.parsed.entries,
      found.fetched.url,
    );
    return { feed: this.store.feed(feed.id), counts, ...(found.url !== url && { discoveredFrom: url }) };
  }

  /** Subscribes to the feeds of an OPML list without fetching them: the next refresh does. */
  importOpml(text: string, intervalMinutes?: number) {
    const added: Feed[] = [];
    const existing: string[] = [];
    const invalid: { url: string; reason: string }[] = [];
    this.store.db
      .transaction(() => {
        for (const entry of opmlFeeds(text)) {
          let url: string;
          try {
            url = checkedUrl(entry.url).href;
          } catch (error) {
            invalid.push({ url: entry.url, reason: (error as Error).message });
            continue;
          }
          if (this.store.findByUrl(url)) {
            existing.push(url);
            continue;
          }
          added.push(
            this.store.addFeed({
              url,
              ...(entry.title !== undefined && { title: entry.title }),
              ...(entry.siteUrl !== undefined && { siteUrl: entry.siteUrl }),
              ...(intervalMinutes !== undefined && { intervalMinutes }),
            }),
          );
        }
      })
      .immediate();
    return { added, existing, invalid };
  }

  /** The subscriptions as OPML, and what the document is made of (it also carries the time it was made). */
  exportOpml(): { opml: string; feeds: number; madeOf: string } {
    const feeds = this.store.listFeeds();
    // OPML 2.0 wants at least one outline in the body; a list of nothing is no OPML to give.
    if (feeds.length === 0)
      throw new ToolError(
        'There are no feeds to export: subscribe with add_feed or import_opml first.',
        'nothing_to_export',
      );
    const madeOf = JSON.stringify(feeds.map((feed) => [feed.url, feed.title, feed.siteUrl]));
    return { opml: renderOpml(feeds), feeds: feeds.length, madeOf };
  }

  private validUrl(address: string): string {
    try {
      return checkedUrl(address).href;
    } catch (error) {
      throw new ToolError((error as Error).message, 'invalid_url');
    }
  }

  private refuseSubscribed(url: string): void {
    const feed = this.store.findByUrl(url);
    if (feed) {
      throw new ToolError(
        `${url} is already subscribed as feed ${feed.id} ("${feed.title}").`,
        'already_exists',
      );
    }
  }

  private async fetchOrExplain(url: string, signal?: AbortSignal) {
    try {
      return await this.fetchDocument(url, signal);
    } catch (error) {
      throw new ToolError(
        `Could not fetch ${url}: ${(error as Error).message}. Nothing was added.`,
        'fetch_failed',
      );
    }
  }

  private async fetchDocument(url: string, signal?: AbortSignal) {
    const fetched = await this.fetcher.fetch(url, {}, signal);
    if (fetched.kind !== 'fetched') throw new Error('it answered 304 to an unconditional request');
    return fetched;
  }

  private async discover(
    pageUrl: string,
    page: FetchOutcome & { kind: 'fetched' },
    notAFeed: FeedFormatError,
    signal?: AbortSignal,
  ) {
    const candidates = feedLinks(page.body, page.url).slice(0, MAX_DISCOVERED);
    if (candidates.length === 0) {
      throw new ToolError(
        `${pageUrl} is not a feed (${notAFeed.message.replace(/: give add_feed.*$/, '')}) and names none with <link rel="alternate">. Give the feed's own address. Nothing was added.`,
        'not_a_feed',
      );
    }
    const tried: string[] = [];
    for (const candidate of candidates) {
      try {
        const fetched = await this.fetchDocument(this.validUrl(candidate), signal);
        return { url: candidate, fetched, parsed: parseFeedDocument(fetched.body) };
      } catch (error) {
        tried.push(`${candidate}: ${(error as Error).message}`);
      }
    }
    throw new ToolError(
      `${pageUrl} names feeds, but none could be read: ${tried.join('; ')}. Nothing was added.`,
      'not_a_feed',
    );
  }
}
