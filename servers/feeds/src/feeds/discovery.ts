import { htmlparser2 } from './parsers-when-used.js';

const FEED_TYPES = new Set([
  'application/rss+xml',
  'application/atom+xml',
  'application/feed+json',
  'application/json',
  'application/rdf+xml',
  'application/xml',
  'text/xml',
]);

/** The feeds a web page names with `<link rel="alternate" type="…">`, resolved against the page, in page order. */
export function feedLinks(html: string, pageUrl: string): string[] {
  const found: string[] = [];
  const parser = new (htmlparser2().Parser)(
    {
      onopentag(tag, attributes) {
        if (tag !== 'link') return;
        const rel = (attributes.rel ?? '').toLowerCase().split(/\s+/);
        const type = (attributes.type ?? '').toLowerCase().split(';')[0]?.trim() ?? '';
        if (!rel.includes('alternate') || !FEED_TYPES.has(type) || !attributes.href) return;
        try {
          const url = new URL(attributes.href, pageUrl).href;
          if (!found.includes(url)) found.push(url);
        } catch {
          // An href that is not a URL names no feed.
        }
      },
      onclosetag(tag) {
        if (tag === 'head') parser.pause();
      },
    },
    { lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return found;
}
