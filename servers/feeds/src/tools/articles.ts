import {
  budgetFields,
  cursorArg,
  decodePosition,
  encodePosition,
  frameUntrusted,
  maxTokensArg,
  requestKey,
  ToolError,
  takeWithinBudget,
} from '@toolmesh/core';
import { z } from 'zod';
import type { ArticlePosition } from '../feeds/store.js';
import type { ArticleSummary } from '../feeds/types.js';
import {
  articleIdArg,
  articleLine,
  articleSummarySchema,
  defineTool,
  feedIdArg,
  fromFeeds,
  LOCAL_STATE_ACTIONS,
  LOCAL_WRITE,
  more,
  READ_ONLY,
} from './define.js';
import { textWindow } from './text-window.js';

/** A summary is well over 100 bytes, so a window this size holds more than any budget lets through. */
const windowFor = (maxTokens: number) => Math.ceil(maxTokens / 100) + 1;

const positionSchema = z.object({ sortAt: z.number(), id: z.number().int() }).nullable();

/**
 * A budgeted page of articles (newest first) whose cursor is the position of the last one shown,
 * not an offset: marking shown articles read, which drops them from an unread listing, then
 * neither skips nor repeats any.
 */
function pageAfterPosition(
  args: { cursor?: string | undefined; maxTokens: number } & Record<string, unknown>,
  read: (after: ArticlePosition | undefined, limit: number) => (ArticleSummary & ArticlePosition)[],
) {
  const key = requestKey(args);
  const parsed = positionSchema.safeParse(
    args.cursor === undefined ? null : decodePosition(args.cursor, key),
  );
  if (!parsed.success)
    throw new ToolError('`cursor` is not a cursor this server issued: call again without it.', 'bad_cursor');
  const position = parsed.data ?? undefined;
  const limit = windowFor(args.maxTokens);
  const window = read(position, limit);
  const summaries = window.map(({ sortAt: _sortAt, ...summary }) => summary);
  const page = takeWithinBudget(summaries, args.maxTokens, { key, more: window.length === limit });
  const last = window[page.items.length - 1];
  const { nextCursor: _offsetCursor, ...budget } = page;
  // A blocked page shows nothing: a cursor at where it started would hand the caller its own back.
  if (!last) return budget;
  const resume = { sortAt: last.sortAt, id: last.id };
  return { ...budget, ...(page.truncated && { nextCursor: encodePosition(resume, key) }) };
}

function sinceMs(since: string | undefined): number | undefined {
  if (since === undefined) return undefined;
  const ms = Date.parse(since);
  if (Number.isNaN(ms)) {
    throw new ToolError(
      `\`since\` is not a date: give an ISO 8601 time such as 2024-03-01T00:00:00Z, not "${since}".`,
    );
  }
  return ms;
}

export const listArticles = defineTool({
  name: 'list_articles',
  title: 'List articles',
  description:
    'Articles newest first, optionally only of one feed, only unread or read, only saved or not, and only since a time. Each has an excerpt; get_article reads one in full. Budgeted: continue with nextCursor.',
  capability: 'read',
  input: z.object({
    feed_id: feedIdArg.optional(),
    unread: z.boolean().optional().describe('true: only unread; false: only read.'),
    saved: z.boolean().optional().describe('true: only saved; false: only not saved.'),
    since: z
      .string()
      .max(64)
      .optional()
      .describe('Only articles published (or first seen) at or after this ISO 8601 time.'),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({ total: z.number().int(), articles: z.array(articleSummarySchema), ...budgetFields }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (out) =>
    [`${out.total} article(s)`, ...fromFeeds(out.articles.map(articleLine)), ...more(out)].join('\n'),
  async handle(args, { engine }) {
    const since = sinceMs(args.since);
    const filter = {
      ...(args.feed_id !== undefined && { feedId: args.feed_id }),
      ...(args.unread !== undefined && { unread: args.unread }),
      ...(args.saved !== undefined && { saved: args.saved }),
      ...(since !== undefined && { since }),
    };
    if (args.feed_id !== undefined) engine.store.feed(args.feed_id);
    const total = engine.store.countArticles(filter);
    const { items, ...budget } = pageAfterPosition(args, (after, limit) =>
      engine.store.listArticles(filter, { after, limit }),
    );
    return { total, articles: items, ...budget };
  },
});

export const getArticle = defineTool({
  name: 'get_article',
  title: 'Read an article',
  description:
    'One article in full: its content reduced from HTML to markdown (scripts, styles and tracking pixels removed) and framed as untrusted content from the feed. A long article is cut to maxTokens: continue with nextCursor.',
  capability: 'read',
  input: z.object({ article_id: articleIdArg, maxTokens: maxTokensArg, cursor: cursorArg }),
  output: z.object({
    article: articleSummarySchema.extend({
      guid: z.string().nullable(),
      updatedAt: z.string().nullable(),
      firstSeenAt: z.string(),
    }),
    content: z.string().describe('The markdown (or the part that fits), inside an untrusted-content frame.'),
    contentChars: z.number().int().describe('Length of the whole markdown, in characters.'),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (out) => [...fromFeeds([articleLine(out.article)]), '', out.content, ...more(out)].join('\n'),
  async handle(args, { engine }) {
    const { content, excerpt: _excerpt, ...article } = engine.store.article(args.article_id);
    const source = article.link ?? `feed ${article.feedTitle}`;
    const changed = `article ${args.article_id} changed since the part that cursor continues: call again without cursor to read it from the start.`;
    return textWindow(args, { text: content, changed }, (part) => ({
      article: { ...article, excerpt: '' },
      contentChars: content.length,
      content: frameUntrusted(part, source),
    }));
  },
});

export const setArticleRead = defineTool({
  name: 'set_article_read',
  title: 'Mark an article read or unread',
  description: 'Marks one article read (default) or unread. For many at once, use mark_articles_read.',
  capability: 'write',
  input: z.object({ article_id: articleIdArg, read: z.boolean().default(true) }),
  output: z.object({ article: articleSummarySchema }),
  annotations: LOCAL_WRITE,
  actions: LOCAL_STATE_ACTIONS,
  render: (out) => fromFeeds([articleLine(out.article)]).join('\n'),
  async handle(args, { engine }) {
    // The output schema keeps the summary fields of the article the store returns.
    return { article: engine.store.setRead(args.article_id, args.read) };
  },
});

export const setArticleSaved = defineTool({
  name: 'set_article_saved',
  title: 'Save or unsave an article',
  description:
    'Saves one article (default) or removes it from the saved ones; list_articles with saved=true lists them.',
  capability: 'write',
  input: z.object({ article_id: articleIdArg, saved: z.boolean().default(true) }),
  output: z.object({ article: articleSummarySchema }),
  annotations: LOCAL_WRITE,
  actions: LOCAL_STATE_ACTIONS,
  render: (out) => fromFeeds([articleLine(out.article)]).join('\n'),
  async handle(args, { engine }) {
    // The output schema keeps the summary fields of the article the store returns.
    return { article: engine.store.setSaved(args.article_id, args.saved) };
  },
});

export const markArticlesRead = defineTool({
  name: 'mark_articles_read',
  title: 'Mark many articles read',
  description:
    'Marks up to 100 articles read (or unread with read=false) in one transaction, such as the ids a get_unread_digest page returned. Reports which changed, which already were, and ids that do not exist.',
  capability: 'write',
  input: z.object({
    article_ids: z.array(articleIdArg).min(1).max(100),
    read: z.boolean().default(true),
  }),
  output: z.object({
    changed: z.array(z.number().int()),
    unchanged: z.array(z.number().int()),
    unknown: z.array(z.number().int()),
  }),
  annotations: LOCAL_WRITE,
  actions: LOCAL_STATE_ACTIONS,
  render: (out) =>
    `${out.changed.length} marked, ${out.unchanged.length} already so${out.unknown.length ? `, unknown ids: ${out.unknown.join(', ')}` : ''}`,
  async handle(args, { engine }) {
    return engine.store.markRead(args.article_ids, args.read);
  },
});

export const getUnreadDigest = defineTool({
  name: 'get_unread_digest',
  title: 'Unread digest',
  description:
    'Unread articles across all feeds, newest first, each with an excerpt, plus the ids shown so they can be acknowledged with mark_articles_read. Budgeted; the cursor is a position, so marking a page read does not make the next page skip anything.',
  capability: 'read',
  input: z.object({ maxTokens: maxTokensArg, cursor: cursorArg }),
  output: z.object({
    unreadTotal: z.number().int(),
    articles: z.array(articleSummarySchema),
    ids: z.array(z.number().int()).describe('The ids of the articles shown, for mark_articles_read.'),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (out) => {
    const lines: string[] = [];
    let feed = '';
    for (const article of out.articles) {
      if (article.feedTitle !== feed) {
        feed = article.feedTitle;
        lines.push('', `## ${feed}`);
      }
      lines.push(`#${article.id} ${article.title}${article.link ? ` <${article.link}>` : ''}`);
      if (article.excerpt) lines.push(`  ${article.excerpt}`);
    }
    return [
      `${out.unreadTotal} unread`,
      ...fromFeeds(lines),
      ...(out.ids.length
        ? [`Acknowledge with mark_articles_read {"article_ids": [${out.ids.join(', ')}]}`]
        : []),
      ...more(out),
    ].join('\n');
  },
  async handle(args, { engine }) {
    const { items, ...budget } = pageAfterPosition(args, (after, limit) =>
      engine.store.unreadAfter(after, limit),
    );
    return {
      unreadTotal: engine.store.countArticles({ unread: true }),
      articles: items,
      ids: items.map((article) => article.id),
      ...budget,
    };
  },
});
