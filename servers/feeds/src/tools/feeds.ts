import { budgetFields, cursorArg, maxTokensArg, requestedPage } from '@toolmesh/core';
import { z } from 'zod';
import {
  defineTool,
  FETCHES,
  feedIdArg,
  feedLine,
  feedSchema,
  feedView,
  fromFeeds,
  intervalArg,
  LOCAL_STATE_ACTIONS,
  LOCAL_WRITE,
  more,
  READ_ONLY,
} from './define.js';

export const listFeeds = defineTool({
  name: 'list_feeds',
  title: 'List feeds',
  description:
    'The subscribed RSS / Atom / JSON feeds with their ids, unread and total article counts, schedule and last error. Budgeted: continue with nextCursor.',
  capability: 'read',
  input: z.object({ maxTokens: maxTokensArg, cursor: cursorArg }),
  output: z.object({ feeds: z.array(feedSchema), ...budgetFields }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (out) =>
    [
      out.feeds.length ? '' : 'No feeds yet: add one with add_feed.',
      ...fromFeeds(out.feeds.map(feedLine)),
      ...more(out),
    ]
      .filter(Boolean)
      .join('\n'),
  async handle(args, { engine }) {
    const { items, ...budget } = requestedPage(engine.store.listFeeds().map(feedView), args);
    return { feeds: items, ...budget };
  },
});

export const addFeed = defineTool({
  name: 'add_feed',
  title: 'Subscribe to a feed',
  description:
    'Subscribes to a feed by its URL, or by a web page whose <link rel="alternate"> names the feed. Fetches it at once (http and https only; private and loopback addresses refused) and stores its articles; nothing is added when it cannot be read.',
  capability: 'network',
  input: z.object({
    url: z.string().min(1).max(2048).describe('The feed URL, or a web page that links to its feed.'),
    title: z.string().min(1).max(200).optional().describe("A title to use instead of the feed's own."),
    interval_minutes: intervalArg.optional(),
  }),
  output: z.object({
    feed: feedSchema,
    discoveredFrom: z.string().optional().describe('The page the feed was found through.'),
    newArticles: z.number().int(),
  }),
  annotations: FETCHES,
  actions: ['networkEgress'],
  render: (out) =>
    [
      'Subscribed:',
      ...fromFeeds([
        feedLine(out.feed),
        ...(out.discoveredFrom ? [`(found through ${out.discoveredFrom})`] : []),
      ]),
      `${out.newArticles} article(s) stored.`,
    ]
      .filter(Boolean)
      .join('\n'),
  async handle(args, { engine, signal }) {
    const added = await engine.subscribe(
      args.url,
      {
        ...(args.title !== undefined && { title: args.title }),
        ...(args.interval_minutes !== undefined && { intervalMinutes: args.interval_minutes }),
      },
      signal,
    );
    return {
      feed: feedView(added.feed),
      ...(added.discoveredFrom !== undefined && { discoveredFrom: added.discoveredFrom }),
      newArticles: added.counts.new,
    };
  },
});

export const removeFeed = defineTool({
  name: 'remove_feed',
  title: 'Unsubscribe from a feed',
  description:
    'Removes a feed and all its articles, saved ones included. To pause a feed instead, use set_feed_enabled.',
  capability: 'write',
  input: z.object({ feed_id: feedIdArg }),
  output: z.object({ removed: feedSchema }),
  annotations: { ...LOCAL_WRITE, destructiveHint: true },
  actions: LOCAL_STATE_ACTIONS,
  render: (out) => ['Removed:', ...fromFeeds([feedLine(out.removed)])].join('\n'),
  async handle(args, { engine }) {
    return { removed: feedView(engine.store.removeFeed(args.feed_id)) };
  },
});

export const setFeedEnabled = defineTool({
  name: 'set_feed_enabled',
  title: 'Enable or disable a feed',
  description:
    'A disabled feed keeps its articles but is neither scheduled nor fetched by refresh_feeds; enabling it makes it due at once.',
  capability: 'write',
  input: z.object({ feed_id: feedIdArg, enabled: z.boolean() }),
  output: z.object({ feed: feedSchema }),
  annotations: LOCAL_WRITE,
  actions: LOCAL_STATE_ACTIONS,
  render: (out) => fromFeeds([feedLine(out.feed)]).join('\n'),
  async handle(args, { engine }) {
    return { feed: feedView(engine.store.setEnabled(args.feed_id, args.enabled)) };
  },
});

const resultSchema = z.object({
  feedId: z.number().int(),
  url: z.string(),
  title: z.string(),
  outcome: z.enum(['updated', 'not_modified', 'failed', 'skipped']),
  new: z.number().int(),
  updated: z.number().int(),
  error: z.string().optional(),
  movedTo: z
    .string()
    .optional()
    .describe('The new address the feed moved to permanently (301 / 308); kept from now on.'),
  nextFetchAt: z.string().nullable(),
});

export const refreshFeeds = defineTool({
  name: 'refresh_feeds',
  title: 'Refresh feeds now',
  description:
    'Fetches every enabled feed now (or the ones named), a few at a time, with conditional GET; sends progress notifications when asked. Reports per feed the new and updated articles or the error. A feed whose server asked to wait (Retry-After, 429) is skipped until then.',
  capability: 'network',
  input: z.object({
    feed_ids: z.array(feedIdArg).min(1).max(1000).optional().describe('Only these feeds (enabled or not).'),
  }),
  output: z.object({
    feeds: z.array(resultSchema),
    totals: z.object({
      feeds: z.number().int(),
      new: z.number().int(),
      updated: z.number().int(),
      failed: z.number().int(),
      notModified: z.number().int(),
      skipped: z.number().int(),
    }),
  }),
  annotations: FETCHES,
  actions: ['networkEgress'],
  render: (out) =>
    [
      `${out.totals.feeds} feed(s): ${out.totals.new} new, ${out.totals.updated} updated, ${out.totals.notModified} unchanged, ${out.totals.failed} failed, ${out.totals.skipped} skipped`,
      ...fromFeeds(
        out.feeds.map(
          (r) =>
            `#${r.feedId} ${r.title || r.url}: ${r.outcome}${r.outcome === 'updated' ? ` (+${r.new} new, ${r.updated} updated)` : ''}${r.error ? ` — ${r.error}` : ''}${r.movedTo ? ` (moved to ${r.movedTo})` : ''}`,
        ),
      ),
    ].join('\n'),
  async handle(args, { engine, signal, progress }) {
    const results = await engine.refresh({
      ...(args.feed_ids && { feedIds: args.feed_ids }),
      signal,
      onProgress: (done, total, last) => progress(done, total, `${last.title || last.url}: ${last.outcome}`),
    });
    const count = (outcome: string) => results.filter((r) => r.outcome === outcome).length;
    return {
      feeds: results,
      totals: {
        feeds: results.length,
        new: results.reduce((sum, r) => sum + r.new, 0),
        updated: results.reduce((sum, r) => sum + r.updated, 0),
        failed: count('failed'),
        notModified: count('not_modified'),
        skipped: count('skipped'),
      },
    };
  },
});
