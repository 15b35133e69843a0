import type { Logger } from '@toolmesh/core';
import { failureDelayMs } from './backoff.js';
import { type FeedFetcher, FetchError } from './fetcher.js';
import { parseFeedDocument } from './parse.js';
import type { FeedStore, StoredFeed } from './store.js';

export interface RefreshResult {
  feedId: number;
  url: string;
  title: string;
  /** updated: fetched and stored (counts may be 0); not_modified: a 304; skipped: the server asked to wait. */
  outcome: 'updated' | 'not_modified' | 'failed' | 'skipped';
  new: number;
  updated: number;
  error?: string;
  /** The feed's new address, when its server moved it permanently (301 / 308) and it was followed. */
  movedTo?: string;
  nextFetchAt: string | null;
}

export type RefreshProgress = (done: number, total: number, last: RefreshResult) => void | Promise<void>;

/**
 * Fetches feeds into the store, a few at a time. One feed is never fetched twice at once (a second
 * request joins the first), and each failure is recorded on its feed with a backoff, so one bad
 * feed costs only its own error.
 */
export class FeedRefresher {
  private readonly inFlight = new Map<number, Promise<RefreshResult>>();

  constructor(
    private readonly store: FeedStore,
    private readonly fetcher: FeedFetcher,
    private readonly options: { concurrency: number; log: Logger },
  ) {}

  async refreshMany(
    feeds: readonly StoredFeed[],
    options: { signal?: AbortSignal; onProgress?: RefreshProgress } = {},
  ): Promise<RefreshResult[]> {
    const results: RefreshResult[] = new Array(feeds.length);
    let next = 0;
    let done = 0;
    const worker = async () => {
      while (next < feeds.length && !options.signal?.aborted) {
        const index = next++;
        const result = await this.refreshFeed(feeds[index] as StoredFeed, options.signal);
        results[index] = result;
        done++;
        await options.onProgress?.(done, feeds.length, result);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, feeds.length) }, worker));
    return results.filter(Boolean);
  }

  refreshFeed(feed: StoredFeed, signal?: AbortSignal): Promise<RefreshResult> {
    const running = this.inFlight.get(feed.id);
    if (running) return running;
    const started = this.fetchAndStore(feed, signal).finally(() => this.inFlight.delete(feed.id));
    this.inFlight.set(feed.id, started);
    return started;
  }

  private async fetchAndStore(feed: StoredFeed, signal?: AbortSignal): Promise<RefreshResult> {
    const now = Date.now();
    const base = { feedId: feed.id, url: feed.url, title: feed.title, new: 0, updated: 0 };
    if (feed.retryUntilMs !== null && feed.retryUntilMs > now) {
      return {
        ...base,
        outcome: 'skipped',
        error: `the server asked not to be fetched before ${new Date(feed.retryUntilMs).toISOString()} (Retry-After)`,
        nextFetchAt: feed.nextFetchAt,
      };
    }
    try {
      const fetched = await this.fetcher.fetch(feed.url, feed, signal);
      const moved =
        fetched.movedPermanently && this.store.moveFeed(feed.id, fetched.url) ? { movedTo: fetched.url } : {};
      if (fetched.kind === 'not-modified') {
        this.store.recordNotModified(feed.id);
        return {
          ...base,
          outcome: 'not_modified',
          ...moved,
          nextFetchAt: this.store.feed(feed.id).nextFetchAt,
        };
      }
      const parsed = parseFeedDocument(fetched.body);
      const counts = this.store.recordSuccess(
        feed.id,
        {
          etag: fetched.etag,
          lastModified: fetched.lastModified,
          title: parsed.title,
          siteUrl: parsed.siteUrl ?? null,
          ttlMinutes: parsed.ttlMinutes ?? null,
        },
        parsed.entries,
        fetched.url,
      );
      const stored = this.store.feed(feed.id);
      return {
        ...base,
        title: stored.title,
        outcome: 'updated',
        ...counts,
        ...moved,
        nextFetchAt: stored.nextFetchAt,
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (signal?.aborted) {
        return { ...base, outcome: 'failed', error: 'cancelled', nextFetchAt: feed.nextFetchAt };
      }
      if (!this.store.hasFeed(feed.id)) {
        return {
          ...base,
          outcome: 'failed',
          error: 'the feed was removed while it was being fetched',
          nextFetchAt: null,
        };
      }
      const status = error instanceof FetchError ? error.status : undefined;
      const retryAfter = error instanceof FetchError ? error.retryAfterMs : undefined;
      const delay = failureDelayMs(feed.errorCount + 1, feed.intervalMinutes, retryAfter);
      // A 429 without Retry-After still means "stop": hold the feed for its backoff.
      const gone = status === 410;
      const reported = gone
        ? `${message}: the publisher removed this feed, so it is disabled; set_feed_enabled turns it back on`
        : message;
      this.store.recordFailure(feed.id, reported, delay, status === 429 ? (retryAfter ?? delay) : retryAfter);
      if (gone) this.store.setEnabled(feed.id, false);
      this.options.log.debug(`feed ${feed.id} ${feed.url} failed: ${reported}`);
      return {
        ...base,
        outcome: 'failed',
        error: reported,
        nextFetchAt: this.store.feed(feed.id).nextFetchAt,
      };
    }
  }
}
