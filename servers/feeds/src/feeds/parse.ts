import type * as Feedsmith from 'feedsmith';
import { feedsmith } from './parsers-when-used.js';

/** One entry of a feed, in the shape the store keeps whatever the format. */
export interface ParsedEntry {
  guid?: string;
  link?: string;
  title: string;
  author?: string;
  /** ISO 8601, when the entry carries a date a parser can read. */
  publishedAt?: string;
  updatedAt?: string;
  /** The fullest body the entry has (HTML, or plain text for JSON Feed's content_text). */
  contentHtml: string;
  summaryHtml: string;
}

export interface ParsedFeed {
  format: 'rss' | 'atom' | 'rdf' | 'json';
  title: string;
  siteUrl?: string;
  /** RSS `<ttl>`: how many minutes the publisher asks readers to wait between polls. */
  ttlMinutes?: number;
  entries: ParsedEntry[];
}

const MAX_TTL_MINUTES = 7 * 24 * 60;

/** The document is not a feed this reader can use; the message says what it is instead. */
export class FeedFormatError extends Error {
  override readonly name = 'FeedFormatError';
}

/** Only the prolog can declare entities; a real feed never needs to. */
const ENTITY_DECLARATION = /<!ENTITY/i;
const ROOT_ELEMENT = /<(?![?!])[A-Za-z_]/;

function refuseEntityDeclarations(text: string): void {
  const root = text.search(ROOT_ELEMENT);
  const prolog = root < 0 ? text : text.slice(0, root);
  if (ENTITY_DECLARATION.test(prolog)) {
    throw new FeedFormatError(
      'the document declares XML entities in a DTD (<!ENTITY …>), which this reader refuses: they are how entity-expansion bombs and external-entity reads work, and no real feed needs them',
    );
  }
}

function looksLikeHtml(text: string): boolean {
  return /^\s*(<!--[\s\S]*?-->\s*)*<(!doctype\s+html|html|head|body)\b/i.test(text);
}

type Loose = Record<string, unknown>;
const loose = (value: unknown): Loose =>
  value !== null && typeof value === 'object' ? (value as Loose) : {};

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number') return String(value);
  const inner = loose(value).value;
  return typeof inner === 'string' ? inner.trim() || undefined : undefined;
}

function isoDate(value: unknown): string | undefined {
  const raw = text(value);
  if (!raw) return undefined;
  const time = Date.parse(raw);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

function first(...values: unknown[]): string | undefined {
  for (const value of values) {
    const found = text(value);
    if (found) return found;
  }
  return undefined;
}

function firstOf(list: unknown): unknown {
  return Array.isArray(list) ? list[0] : undefined;
}

function dublinCore(item: Loose) {
  const dc = loose(item.dc);
  return { creator: firstOf(dc.creators) ?? dc.creator, date: firstOf(dc.dates) ?? dc.date };
}

function rssEntry(item: Loose): ParsedEntry {
  const dc = dublinCore(item);
  const description = text(item.description) ?? '';
  const encoded = text(loose(item.content).encoded);
  return {
    ...optional('guid', text(item.guid) ?? text(loose(item.rdf).about)),
    ...optional('link', text(item.link)),
    title: text(item.title) ?? '',
    ...optional('author', first(dc.creator, item.author, firstOf(item.authors))),
    ...optional('publishedAt', isoDate(item.pubDate) ?? isoDate(dc.date)),
    contentHtml: encoded ?? description,
    summaryHtml: description,
  };
}

function atomLink(entry: Loose): string | undefined {
  const links = Array.isArray(entry.links) ? (entry.links as Loose[]) : [];
  const alternate = links.find((link) => link.rel === undefined || link.rel === 'alternate');
  return text((alternate ?? links[0])?.href);
}

function atomEntry(entry: Loose): ParsedEntry {
  const summary = text(entry.summary) ?? '';
  return {
    ...optional('guid', text(entry.id)),
    ...optional('link', atomLink(entry)),
    title: text(entry.title) ?? '',
    ...optional('author', text(loose(firstOf(entry.authors)).name)),
    ...optional('publishedAt', isoDate(entry.published) ?? isoDate(entry.updated)),
    ...optional('updatedAt', isoDate(entry.updated)),
    contentHtml: text(entry.content) ?? summary,
    summaryHtml: summary,
  };
}

function jsonEntry(item: Loose): ParsedEntry {
  const summary = text(item.summary) ?? '';
  return {
    ...optional('guid', text(item.id)),
    ...optional('link', text(item.url) ?? text(item.external_url)),
    title: text(item.title) ?? '',
    ...optional('author', text(loose(firstOf(item.authors) ?? item.author).name)),
    ...optional('publishedAt', isoDate(item.date_published)),
    ...optional('updatedAt', isoDate(item.date_modified)),
    contentHtml: text(item.content_html) ?? escapeText(text(item.content_text) ?? summary),
    summaryHtml: summary,
  };
}

function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new FeedFormatError(`the document is not valid JSON (${(error as Error).message})`);
  }
}

/**
 * Reads RSS 0.9x / 1.0 / 2.0, Atom and JSON Feed into one shape. Anything else — malformed XML,
 * an HTML page, a DTD with entities — is a FeedFormatError that says what the document is.
 */
export function parseFeedDocument(body: string): ParsedFeed {
  const trimmed = body.trimStart();
  if (looksLikeHtml(trimmed)) {
    throw new FeedFormatError(
      'the address serves an HTML page, not a feed: give add_feed the page so it can find the feed the page links to, or the feed address itself',
    );
  }
  const isJson = trimmed.startsWith('{');
  if (!isJson) refuseEntityDeclarations(trimmed);
  let parsed: ReturnType<typeof Feedsmith.parseFeed>;
  try {
    parsed = feedsmith().parseFeed(isJson ? parseJson(trimmed) : trimmed);
  } catch (error) {
    if (error instanceof FeedFormatError) throw error;
    throw new FeedFormatError(
      `the document is not a readable RSS, Atom or JSON feed (${(error as Error).message}): it may be malformed XML or another kind of document`,
    );
  }
  const feed = loose(parsed.feed);
  const items = (parsed.format === 'atom' ? feed.entries : feed.items) as unknown;
  const list = Array.isArray(items) ? (items as Loose[]) : [];
  const toEntry = parsed.format === 'atom' ? atomEntry : parsed.format === 'json' ? jsonEntry : rssEntry;
  // A publisher's wish, capped at a week: a huge <ttl> would put the next fetch past any date.
  const ttl = Math.min(Number(feed.ttl), MAX_TTL_MINUTES);
  const feedAuthor = text(loose(firstOf(feed.authors)).name);
  return {
    format: parsed.format,
    title: text(feed.title) ?? '',
    ...optional(
      'siteUrl',
      parsed.format === 'atom' ? atomLink(feed) : (text(feed.home_page_url) ?? text(feed.link)),
    ),
    ...(Number.isInteger(ttl) && ttl > 0 && { ttlMinutes: ttl }),
    entries: list.map((item) => {
      const entry = toEntry(item);
      return entry.author === undefined && feedAuthor ? { ...entry, author: feedAuthor } : entry;
    }),
  };
}
