import { frameUntrusted, toolDefiner } from '@toolmesh/core';
import { z } from 'zod';
import type { FeedReader } from '../feeds/reader.js';
import type { ArticleSummary, Feed } from '../feeds/types.js';

export const defineTool = toolDefiner<FeedReader>();

export { READ_ONLY_ANNOTATIONS as READ_ONLY } from '@toolmesh/core';

/** Read and saved marks, subscriptions kept on this machine: nothing outside it changes. */
export const LOCAL_WRITE = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/** Fetches from the feed's server, then stores what came back. */
export const FETCHES = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
} as const;

/**
 * Feed state (subscriptions, read and saved marks) is the reader's own local data, like a todo
 * list: it touches no work tree, repository or ticket, so it is memoryWrite, which read-only
 * planning and review modes allow.
 */
export const LOCAL_STATE_ACTIONS = ['memoryWrite'] as const;

export const feedIdArg = z.number().int().positive().describe('A feed id, as list_feeds shows it.');
export const articleIdArg = z
  .number()
  .int()
  .positive()
  .describe('An article id, as list_articles, search_articles or get_unread_digest show it.');
export const intervalArg = z
  .number()
  .int()
  .min(5)
  .max(1440)
  .describe('Minutes between scheduled fetches of this feed (5-1440, default 30).');

export const feedSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  title: z.string(),
  siteUrl: z.string().nullable(),
  enabled: z.boolean(),
  intervalMinutes: z.number().int(),
  lastFetchedAt: z.string().nullable(),
  lastSuccessAt: z.string().nullable(),
  nextFetchAt: z.string().nullable(),
  errorCount: z.number().int(),
  lastError: z.string().nullable(),
  articles: z.number().int(),
  unread: z.number().int(),
});

export const articleSummarySchema = z.object({
  id: z.number().int(),
  feedId: z.number().int(),
  feedTitle: z.string(),
  title: z.string(),
  link: z.string().nullable(),
  author: z.string().nullable(),
  publishedAt: z.string().nullable(),
  read: z.boolean(),
  saved: z.boolean(),
  excerpt: z.string(),
});

/** The fields of Feed the tools show (the store's row carries validators and times they do not). */
export function feedView(feed: Feed): z.infer<typeof feedSchema> {
  return feedSchema.parse(feed);
}

export function feedLine(feed: z.infer<typeof feedSchema>): string {
  const state = !feed.enabled
    ? 'disabled'
    : feed.lastError
      ? `error ×${feed.errorCount}: ${feed.lastError}`
      : 'ok';
  return `#${feed.id} ${feed.title || '(untitled)'} <${feed.url}> ${feed.unread}/${feed.articles} unread, every ${feed.intervalMinutes} min, ${state}`;
}

export function articleLine(article: ArticleSummary): string {
  const marks = `${article.read ? '' : '● '}${article.saved ? '★ ' : ''}`;
  const when = article.publishedAt ? ` (${article.publishedAt.slice(0, 10)})` : '';
  return `${marks}#${article.id} ${article.title}${when} — ${article.feedTitle}${article.link ? ` <${article.link}>` : ''}`;
}

/** Titles and excerpts come from the feeds, so text renderings frame them as untrusted, as get_article does its content. */
export function fromFeeds(lines: readonly string[]): string[] {
  return lines.length ? [frameUntrusted(lines.join('\n'), 'feed titles and excerpts')] : [];
}

export const more = (out: { truncated: boolean; nextCursor?: string | undefined }) =>
  out.truncated ? [`… more: call again with cursor ${out.nextCursor}`] : [];
