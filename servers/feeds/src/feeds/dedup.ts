import { createHash } from 'node:crypto';
import type { ParsedEntry } from './parse.js';

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/**
 * A link as the same article whatever its spelling: scheme and host case folded, http and https
 * taken as one (feeds move to https and every link changes scheme), the default port and the
 * fragment dropped. Path and query are kept as given: they are case-sensitive.
 */
export function normalizeLink(link: string): string {
  try {
    const url = new URL(link.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return link.trim();
    const port = url.port && url.port !== DEFAULT_PORTS[url.protocol] ? `:${url.port}` : '';
    return `//${url.hostname.toLowerCase()}${port}${url.pathname}${url.search}`;
  } catch {
    return link.trim();
  }
}

/**
 * What makes two entries of one feed the same article: its guid / id, else its link normalised,
 * else a hash of its title and date (an entry with neither is keyed by what it says).
 */
export function dedupKey(entry: ParsedEntry): string {
  if (entry.guid) return `id:${entry.guid}`;
  if (entry.link) return `link:${normalizeLink(entry.link)}`;
  const hash = createHash('sha256')
    .update(`${entry.title}\n${entry.publishedAt ?? ''}\n${entry.title ? '' : entry.summaryHtml}`)
    .digest('base64url');
  return `hash:${hash.slice(0, 22)}`;
}
