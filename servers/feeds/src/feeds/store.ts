import { createHash } from 'node:crypto';
import {
  CachedTermCounts,
  ftsPhrases,
  openDatabase,
  planFullText,
  type SqliteDatabase,
  ToolError,
} from '@toolmesh/core';
import { dedupKey } from './dedup.js';
import { excerpt, htmlToMarkdown, titleText } from './html-to-text.js';
import { FEED_MIGRATIONS } from './migrations.js';
import type { ParsedEntry } from './parse.js';
import type { Article, ArticleFilter, ArticleSummary, Feed, FetchSuccess, IngestCounts } from './types.js';

const DEFAULT_INTERVAL_MINUTES = 30;
/** An article's markdown is cut here: a feed is not an archive, and one entry must not fill the disk. */
const MAX_CONTENT_CHARS = 200_000;

interface FeedRow {
  id: number;
  url: string;
  title: string;
  site_url: string | null;
  enabled: number;
  interval_minutes: number;
  ttl_minutes: number | null;
  etag: string | null;
  last_modified: string | null;
  last_fetched_at: number | null;
  last_success_at: number | null;
  next_fetch_at: number;
  retry_until: number | null;
  error_count: number;
  last_error: string | null;
  articles?: number;
  unread?: number;
}

interface ArticleRow {
  id: number;
  feed_id: number;
  feed_title: string;
  guid: string | null;
  link: string | null;
  title: string;
  author: string | null;
  published_at: number | null;
  updated_at: number | null;
  first_seen_at: number;
  excerpt: string;
  content?: string;
  read: number;
  saved: number;
}

/** The conditional-GET validators of a feed, exactly as its server sent them. */
export interface FeedValidators {
  etag: string | null;
  lastModified: string | null;
}

export interface StoredFeed extends Feed, FeedValidators {
  ttlMinutes: number | null;
  nextFetchMs: number;
  /** Until when the server asked (Retry-After, 429) not to be fetched, even on request. */
  retryUntilMs: number | null;
}

/** Where a page of articles (newest first) stopped. */
export interface ArticlePosition {
  sortAt: number;
  id: number;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const SUMMARY_COLUMNS = `a.id, a.feed_id, f.title AS feed_title, a.guid, a.link, a.title, a.author, a.published_at,
  a.updated_at, a.first_seen_at, a.excerpt, a.read, a.saved`;

function whereOf(filter: ArticleFilter): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (filter.feedId !== undefined) {
    clauses.push('a.feed_id = ?');
    params.push(filter.feedId);
  }
  if (filter.unread !== undefined) clauses.push(filter.unread ? 'a.read = 0' : 'a.read = 1');
  if (filter.saved !== undefined) clauses.push(filter.saved ? 'a.saved = 1' : 'a.saved = 0');
  if (filter.since !== undefined) {
    clauses.push('a.sort_at >= ?');
    params.push(filter.since);
  }
  return { sql: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

/** A word in half the articles or more gets no weight from BM25: its IDF is floored to 1e-6. */
const WEIGHTLESS_SHARE = 0.5;

/**
 * Feeds and their articles in one SQLite file. Articles are keyed per feed by dedupKey, so a
 * re-fetched entry is updated in place and keeps its read and saved marks; FTS5 follows the
 * articles table through triggers.
 */
export class FeedStore {
  readonly db: SqliteDatabase;
  private readonly termCounts: CachedTermCounts;

  constructor(file: string) {
    this.db = openDatabase(file, FEED_MIGRATIONS);
    this.termCounts = new CachedTermCounts(this.db, 'articles_fts');
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  addFeed(
    input: { url: string; title?: string; siteUrl?: string; intervalMinutes?: number },
    now = Date.now(),
  ): StoredFeed {
    const existing = this.findByUrl(input.url);
    if (existing) {
      throw new ToolError(
        `${input.url} is already subscribed as feed ${existing.id} ("${existing.title}"): nothing to add.`,
        'already_exists',
      );
    }
    const { lastInsertRowid } = this.db
      .prepare(
        'INSERT INTO feeds (url, title, site_url, interval_minutes, created_at, next_fetch_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(
        input.url,
        input.title ?? '',
        input.siteUrl ?? null,
        input.intervalMinutes ?? DEFAULT_INTERVAL_MINUTES,
        now,
        now,
      );
    return this.feed(Number(lastInsertRowid));
  }

  hasFeed(id: number): boolean {
    return this.db.prepare('SELECT 1 FROM feeds WHERE id = ?').get(id) !== undefined;
  }

  findByUrl(url: string): StoredFeed | undefined {
    const row = this.db.prepare('SELECT id FROM feeds WHERE url = ?').get(url) as { id: number } | undefined;
    return row ? this.feed(row.id) : undefined;
  }

  feed(id: number): StoredFeed {
    const row = this.db
      .prepare(
        `SELECT f.*, (SELECT count(*) FROM articles WHERE feed_id = f.id) AS articles,
           (SELECT count(*) FROM articles WHERE feed_id = f.id AND read = 0) AS unread
         FROM feeds f WHERE f.id = ?`,
      )
      .get(id) as FeedRow | undefined;
    if (!row) {
      throw new ToolError(
        `There is no feed ${id}: list_feeds shows the subscribed feeds and their ids.`,
        'not_found',
      );
    }
    return this.toFeed(row);
  }

  listFeeds(): StoredFeed[] {
    const rows = this.db
      .prepare(
        `SELECT f.*, count(a.id) AS articles, coalesce(sum(a.read = 0), 0) AS unread
         FROM feeds f LEFT JOIN articles a ON a.feed_id = f.id GROUP BY f.id ORDER BY lower(f.title), f.id`,
      )
      .all() as FeedRow[];
    return rows.map((row) => this.toFeed(row));
  }

  removeFeed(id: number): StoredFeed {
    const feed = this.feed(id);
    this.db.prepare('DELETE FROM feeds WHERE id = ?').run(id);
    return feed;
  }

  /** Follows a permanent redirect: the feed is fetched from `url` from now on, unless another feed has it. */
  moveFeed(id: number, url: string): boolean {
    if (this.findByUrl(url)) return false;
    this.db.prepare('UPDATE feeds SET url = ? WHERE id = ?').run(url, id);
    return true;
  }

  setEnabled(id: number, enabled: boolean, now = Date.now()): StoredFeed {
    this.feed(id);
    if (enabled) {
      // Re-enabling makes the feed due at once, with its error history forgiven.
      this.db
        .prepare(
          'UPDATE feeds SET enabled = 1, next_fetch_at = ?, error_count = 0 WHERE id = ? AND enabled = 0',
        )
        .run(now, id);
    } else {
      this.db.prepare('UPDATE feeds SET enabled = 0 WHERE id = ?').run(id);
    }
    return this.feed(id);
  }

  /** Enabled feeds whose next fetch time has come. */
  dueFeeds(now = Date.now()): StoredFeed[] {
    const ids = this.db
      .prepare('SELECT id FROM feeds WHERE enabled = 1 AND next_fetch_at <= ? ORDER BY next_fetch_at, id')
      .all(now) as { id: number }[];
    return ids.map(({ id }) => this.feed(id));
  }

  enabledFeeds(): StoredFeed[] {
    const ids = this.db.prepare('SELECT id FROM feeds WHERE enabled = 1 ORDER BY id').all() as {
      id: number;
    }[];
    return ids.map(({ id }) => this.feed(id));
  }

  /** Stores a fetched document's entries and the feed's new validators, in one transaction. */
  recordSuccess(
    feedId: number,
    fetched: FetchSuccess,
    entries: readonly ParsedEntry[],
    baseUrl: string,
    now = Date.now(),
  ): IngestCounts {
    return this.db
      .transaction(() => {
        const feed = this.feed(feedId);
        const counts = this.ingest(feedId, entries, baseUrl, now);
        const interval = Math.max(feed.intervalMinutes, fetched.ttlMinutes ?? 0);
        this.db
          .prepare(
            `UPDATE feeds SET etag = ?, last_modified = ?, title = CASE WHEN title = '' THEN ? ELSE title END,
               site_url = coalesce(?, site_url), ttl_minutes = ?, last_fetched_at = ?, last_success_at = ?,
               next_fetch_at = ?, retry_until = NULL, error_count = 0, last_error = NULL WHERE id = ?`,
          )
          .run(
            fetched.etag,
            fetched.lastModified,
            fetched.title,
            fetched.siteUrl,
            fetched.ttlMinutes,
            now,
            now,
            now + interval * 60_000,
            feedId,
          );
        return counts;
      })
      .immediate();
  }

  /** A 304: nothing changed, so only the schedule moves. */
  recordNotModified(feedId: number, now = Date.now()): void {
    const feed = this.feed(feedId);
    const interval = Math.max(feed.intervalMinutes, feed.ttlMinutes ?? 0);
    this.db
      .prepare(
        `UPDATE feeds SET last_fetched_at = ?, last_success_at = ?, next_fetch_at = ?, retry_until = NULL,
           error_count = 0, last_error = NULL WHERE id = ?`,
      )
      .run(now, now, now + interval * 60_000, feedId);
  }

  /**
   * A failed fetch: the schedule waits `delayMs` before trying again, and when the server named a
   * time (`retryAfterMs`), not even a refresh on request fetches it before then.
   */
  recordFailure(
    feedId: number,
    message: string,
    delayMs: number,
    retryAfterMs?: number,
    now = Date.now(),
  ): void {
    this.db
      .prepare(
        `UPDATE feeds SET last_fetched_at = ?, next_fetch_at = ?, retry_until = ?, error_count = error_count + 1,
           last_error = ? WHERE id = ?`,
      )
      .run(now, now + delayMs, retryAfterMs === undefined ? null : now + retryAfterMs, message, feedId);
  }

  private ingest(
    feedId: number,
    entries: readonly ParsedEntry[],
    baseUrl: string,
    now: number,
  ): IngestCounts {
    const counts: IngestCounts = { new: 0, updated: 0 };
    const find = this.db.prepare('SELECT id, content_hash FROM articles WHERE feed_id = ? AND dedup_key = ?');
    const insert = this.db.prepare(
      `INSERT INTO articles (feed_id, dedup_key, guid, link, title, author, published_at, updated_at,
         first_seen_at, sort_at, excerpt, content, content_hash)
       VALUES (@feedId, @key, @guid, @link, @title, @author, @publishedAt, @updatedAt, @firstSeen,
         coalesce(@publishedAt, @firstSeen), @excerpt, @content, @hash)`,
    );
    const update = this.db.prepare(
      `UPDATE articles SET guid = @guid, link = @link, title = @title, author = @author,
         published_at = @publishedAt, updated_at = @updatedAt, sort_at = coalesce(@publishedAt, first_seen_at),
         excerpt = @excerpt, content = @content, content_hash = @hash
       WHERE id = @id`,
    );
    entries.forEach((entry, index) => {
      const key = dedupKey(entry);
      const link = entry.link ? resolveLink(entry.link, baseUrl) : null;
      const content = htmlToMarkdown(entry.contentHtml, link ?? baseUrl).slice(0, MAX_CONTENT_CHARS);
      const summary =
        entry.summaryHtml && entry.summaryHtml !== entry.contentHtml
          ? htmlToMarkdown(entry.summaryHtml, link ?? baseUrl)
          : content;
      const title = titleText(entry.title);
      const values = {
        feedId,
        key,
        guid: entry.guid ?? null,
        link,
        title: title || excerpt(summary, 80) || '(untitled)',
        author: entry.author ?? null,
        publishedAt: entry.publishedAt ? Date.parse(entry.publishedAt) : null,
        updatedAt: entry.updatedAt ? Date.parse(entry.updatedAt) : null,
        // Undated entries keep the feed's order (newest first) among themselves.
        firstSeen: now - index,
        excerpt: excerpt(summary),
        content,
      };
      const hash = createHash('sha256')
        .update(JSON.stringify({ ...values, firstSeen: 0 }))
        .digest('base64url');
      const existing = find.get(feedId, key) as { id: number; content_hash: string } | undefined;
      if (!existing) {
        insert.run({ ...values, hash });
        counts.new++;
      } else if (existing.content_hash !== hash) {
        update.run({ ...values, hash, id: existing.id });
        counts.updated++;
      }
    });
    return counts;
  }

  countArticles(filter: ArticleFilter): number {
    const where = whereOf(filter);
    return (
      this.db.prepare(`SELECT count(*) AS n FROM articles a ${where.sql}`).get(...where.params) as {
        n: number;
      }
    ).n;
  }

  /**
   * Newest first, from the start or `after` a position of a previous page: a position, unlike an
   * offset, shifts nothing when articles before it are marked read or leave the filter.
   */
  listArticles(
    filter: ArticleFilter,
    window: { after?: ArticlePosition | undefined; limit: number },
  ): (ArticleSummary & ArticlePosition)[] {
    const where = whereOf(filter);
    const { after } = window;
    const position = '(a.sort_at < ? OR (a.sort_at = ? AND a.id < ?))';
    const clauses = after ? `${where.sql ? `${where.sql} AND` : 'WHERE'} ${position}` : where.sql;
    const rows = this.db
      .prepare(
        `SELECT ${SUMMARY_COLUMNS}, a.sort_at FROM articles a JOIN feeds f ON f.id = a.feed_id ${clauses}
         ORDER BY a.sort_at DESC, a.id DESC LIMIT ?`,
      )
      .all(
        ...where.params,
        ...(after ? [after.sortAt, after.sortAt, after.id] : []),
        window.limit,
      ) as (ArticleRow & { sort_at: number })[];
    return rows.map((row) => ({ ...toSummary(row), sortAt: row.sort_at }));
  }

  /** Unread articles after a position of a previous page (newest first), so acknowledging shifts nothing. */
  unreadAfter(position: ArticlePosition | undefined, limit: number): (ArticleSummary & ArticlePosition)[] {
    return this.listArticles({ unread: true }, { after: position, limit });
  }

  article(id: number): Article {
    const row = this.db
      .prepare(
        `SELECT ${SUMMARY_COLUMNS}, a.content FROM articles a JOIN feeds f ON f.id = a.feed_id WHERE a.id = ?`,
      )
      .get(id) as ArticleRow | undefined;
    if (!row) throw articleNotFound(id);
    return {
      ...toSummary(row),
      guid: row.guid,
      updatedAt: iso(row.updated_at),
      firstSeenAt: iso(row.first_seen_at) as string,
      content: row.content ?? '',
    };
  }

  setRead(id: number, read: boolean): ArticleSummary {
    return this.setFlag(id, 'read', read);
  }

  setSaved(id: number, saved: boolean): ArticleSummary {
    return this.setFlag(id, 'saved', saved);
  }

  private setFlag(id: number, column: 'read' | 'saved', value: boolean): ArticleSummary {
    const { changes } = this.db
      .prepare(`UPDATE articles SET ${column} = ? WHERE id = ?`)
      .run(value ? 1 : 0, id);
    if (changes === 0) throw articleNotFound(id);
    return this.article(id);
  }

  /** Marks many at once; returns which ids changed and which do not exist. */
  markRead(
    ids: readonly number[],
    read: boolean,
  ): { changed: number[]; unchanged: number[]; unknown: number[] } {
    return this.db
      .transaction(() => {
        const result = { changed: [] as number[], unchanged: [] as number[], unknown: [] as number[] };
        const current = this.db.prepare('SELECT read FROM articles WHERE id = ?');
        const set = this.db.prepare('UPDATE articles SET read = ? WHERE id = ?');
        for (const id of new Set(ids)) {
          const row = current.get(id) as { read: number } | undefined;
          if (!row) result.unknown.push(id);
          else if (Boolean(row.read) === read) result.unchanged.push(id);
          else {
            set.run(read ? 1 : 0, id);
            result.changed.push(id);
          }
        }
        return result;
      })
      .immediate();
  }

  /**
   * FTS5 BM25 over title (weighted most), author and content; every word must match. When every
   * word is in half the articles or more, BM25 weighs none of them (their IDF is floored to
   * 1e-6) yet ranking would read every article holding them: the newest matches come first
   * instead (score 0), which FTS5 reads without going through whole doclists.
   */
  search(
    query: string,
    options: { feedId?: number; limit: number },
  ): { order: 'ranked' | 'newest'; hits: { article: ArticleSummary; score: number }[] } {
    const terms = query.match(/[\p{L}\p{N}_]+/gu) ?? [];
    if (terms.length === 0) {
      throw new ToolError('the query has no words to search for: give one or more words.', 'invalid_query');
    }
    const size = (this.db.prepare('SELECT max(id) FROM articles').pluck().get() as number | null) ?? 0;
    const { order } = planFullText(
      terms,
      (term) => this.termCounts.documentsWith(term, size),
      size,
      WEIGHTLESS_SHARE,
    );
    const score = order === 'newest' ? '0' : 'bm25(articles_fts, 10.0, 2.0, 1.0)';
    const sort = order === 'newest' ? 'rowid DESC' : 'score';
    const inFeed =
      options.feedId !== undefined ? 'AND rowid IN (SELECT id FROM articles WHERE feed_id = ?)' : '';
    // Ranked (or read newest first) on the index alone, then joined: joining every match before the sort costs twice as much.
    const rows = this.db
      .prepare(
        `SELECT ${SUMMARY_COLUMNS}, hit.score FROM (
           SELECT rowid, ${score} AS score FROM articles_fts
           WHERE articles_fts MATCH ? ${inFeed} ORDER BY ${sort} LIMIT ?
         ) hit JOIN articles a ON a.id = hit.rowid JOIN feeds f ON f.id = a.feed_id ORDER BY hit.${sort}`,
      )
      .all(
        ftsPhrases(terms),
        ...(options.feedId !== undefined ? [options.feedId] : []),
        options.limit,
      ) as (ArticleRow & { score: number })[];
    return {
      order,
      hits: rows.map((row) => ({ article: toSummary(row), score: order === 'newest' ? 0 : -row.score })),
    };
  }

  private toFeed(row: FeedRow): StoredFeed {
    return {
      id: row.id,
      url: row.url,
      title: row.title,
      siteUrl: row.site_url,
      enabled: row.enabled === 1,
      intervalMinutes: row.interval_minutes,
      lastFetchedAt: iso(row.last_fetched_at),
      lastSuccessAt: iso(row.last_success_at),
      nextFetchAt: row.enabled === 1 ? iso(row.next_fetch_at) : null,
      errorCount: row.error_count,
      lastError: row.last_error,
      articles: row.articles ?? 0,
      unread: row.unread ?? 0,
      etag: row.etag,
      lastModified: row.last_modified,
      ttlMinutes: row.ttl_minutes,
      nextFetchMs: row.next_fetch_at,
      retryUntilMs: row.retry_until,
    };
  }
}

function resolveLink(link: string, base: string): string {
  try {
    return new URL(link, base).href;
  } catch {
    return link;
  }
}

function articleNotFound(id: number): ToolError {
  return new ToolError(
    `There is no article ${id}: list_articles, search_articles and get_unread_digest show article ids.`,
    'not_found',
  );
}

function toSummary(row: ArticleRow): ArticleSummary {
  return {
    id: row.id,
    feedId: row.feed_id,
    feedTitle: row.feed_title,
    title: row.title,
    link: row.link,
    author: row.author,
    publishedAt: iso(row.published_at),
    read: row.read === 1,
    saved: row.saved === 1,
    excerpt: row.excerpt,
  };
}
