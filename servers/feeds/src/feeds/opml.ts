import { ToolError } from '@toolmesh/core';
import { feedsmith } from './parsers-when-used.js';
import type { Feed } from './types.js';

export interface OpmlFeed {
  url: string;
  title?: string;
  siteUrl?: string;
}

type Outline = { text?: string; title?: string; xmlUrl?: string; htmlUrl?: string; outlines?: Outline[] };

/** The feeds of an OPML subscription list, folders flattened, in document order. */
export function opmlFeeds(text: string): OpmlFeed[] {
  if (/<!ENTITY/i.test(text.slice(0, Math.max(0, text.search(/<opml\b/i))))) {
    throw new ToolError(
      'the OPML declares XML entities in a DTD, which are refused: remove the DOCTYPE.',
      'invalid_opml',
    );
  }
  let document: { body?: { outlines?: Outline[] } };
  try {
    document = feedsmith().parseOpml(text) as typeof document;
  } catch (error) {
    throw new ToolError(
      `the text is not an OPML document (${(error as Error).message}): pass the file's XML as it is.`,
      'invalid_opml',
    );
  }
  const feeds: OpmlFeed[] = [];
  const walk = (outlines: Outline[] | undefined) => {
    for (const outline of outlines ?? []) {
      if (outline.xmlUrl) {
        const title = outline.title ?? outline.text;
        feeds.push({
          url: outline.xmlUrl.trim(),
          ...(title && { title }),
          ...(outline.htmlUrl && { siteUrl: outline.htmlUrl.trim() }),
        });
      }
      walk(outline.outlines);
    }
  };
  walk(document.body?.outlines);
  return feeds;
}

/** An OPML 2.0 subscription list of the feeds, as other readers import it. */
export function renderOpml(feeds: readonly Feed[], now = new Date()): string {
  return feedsmith().generateOpml({
    head: { title: 'toolmesh feeds', dateCreated: now },
    body: {
      outlines: feeds.map((feed) => ({
        text: feed.title || feed.url,
        ...(feed.title && { title: feed.title }),
        type: 'rss',
        xmlUrl: feed.url,
        ...(feed.siteUrl && { htmlUrl: feed.siteUrl }),
      })),
    },
  }) as string;
}
