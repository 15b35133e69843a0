import { budgetFields, cursorArg, maxTokensArg, NEWEST_FIRST_NOTE, requestedPage } from '@toolmesh/core';
import { z } from 'zod';
import {
  articleLine,
  articleSummarySchema,
  defineTool,
  feedIdArg,
  fromFeeds,
  more,
  READ_ONLY,
} from './define.js';

export const searchArticles = defineTool({
  name: 'search_articles',
  title: 'Search articles',
  description:
    'Full-text search (SQLite FTS5, BM25 ranking) over article titles (weighted most), authors and content, optionally in one feed; every word must match. Best first; when every word is in half the articles or more (BM25 weighs none of them), the newest matches first, said in note. Budgeted: continue with nextCursor.',
  capability: 'read',
  input: z.object({
    query: z.string().min(1).max(500).describe('Words to find.'),
    feed_id: feedIdArg.optional(),
    limit: z.number().int().min(1).max(200).default(50).describe('At most this many hits (default 50).'),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    hits: z.array(z.object({ article: articleSummarySchema, score: z.number() })),
    note: z.string().optional().describe('Set when the hits are newest first rather than ranked, and why.'),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (out) =>
    [
      out.hits.length ? '' : 'No match.',
      out.note ?? '',
      ...fromFeeds(out.hits.map((hit) => `${articleLine(hit.article)} (score ${hit.score.toFixed(2)})`)),
      ...more(out),
    ]
      .filter(Boolean)
      .join('\n'),
  async handle(args, { engine }) {
    const { order, hits } = engine.store.search(args.query, {
      limit: args.limit,
      ...(args.feed_id !== undefined && { feedId: args.feed_id }),
    });
    const { items, ...budget } = requestedPage(hits, args);
    return { hits: items, ...(order === 'newest' && { note: NEWEST_FIRST_NOTE }), ...budget };
  },
});
