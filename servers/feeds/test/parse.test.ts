import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FeedFormatError, parseFeedDocument } from '../src/feeds/parse.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

describe('parseFeedDocument', () => {
  it('reads RSS 0.91 and 0.92, which have no guids and no dates', () => {
    const old = parseFeedDocument(fixture('rss091.xml'));
    expect(old.format).toBe('rss');
    expect(old.title).toBe('Netscape-era News');
    expect(old.entries.map((e) => [e.guid, e.link, e.title])).toEqual([
      [undefined, 'HTTP://Old.Example.COM/news/cafe', 'Café opens downtown'],
      [undefined, 'http://old.example.com/news/library', 'Library extends hours'],
    ]);
    const radio = parseFeedDocument(fixture('rss092.xml'));
    expect(radio.entries[1]).toMatchObject({
      title: '',
      summaryHtml: expect.stringMatching(/only a description/),
    });
  });

  it('reads RSS 1.0 (RDF) with Dublin Core dates and rdf:about as the id', () => {
    const rdf = parseFeedDocument(fixture('rdf10.xml'));
    expect(rdf.format).toBe('rdf');
    expect(rdf.entries[0]).toMatchObject({
      guid: 'https://rdf.example.org/a',
      title: 'Semantic web revisited',
      author: 'Tim',
      publishedAt: '2024-03-01T10:00:00.000Z',
    });
  });

  it('reads RSS 2.0 with content:encoded, dc:creator and ttl', () => {
    const rss = parseFeedDocument(fixture('rss20.xml'));
    expect(rss).toMatchObject({ format: 'rss', siteUrl: 'https://blog.example.com/', ttlMinutes: 60 });
    expect(rss.entries[0]).toMatchObject({
      guid: 'post-1001',
      author: 'Ada Lovelace',
      publishedAt: '2024-03-05T09:30:00.000Z',
      summaryHtml: 'How we picked a feed parser.',
    });
    expect(rss.entries[0]?.contentHtml).toMatch(/<strong>three<\/strong>/);
  });

  it('reads Atom, taking the alternate link and the updated date', () => {
    const atom = parseFeedDocument(fixture('atom.xml'));
    expect(atom).toMatchObject({ format: 'atom', title: 'Atom Notes', siteUrl: 'https://atom.example.org/' });
    expect(atom.entries[0]).toMatchObject({
      guid: 'urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a',
      link: 'https://atom.example.org/compilers',
      author: 'Grace Hopper',
      publishedAt: '2024-04-01T18:30:02.000Z',
      updatedAt: '2024-04-02T18:30:02.000Z',
    });
    expect(atom.entries[1]?.contentHtml).toMatch(/11\.8 inches/);
  });

  it('reads JSON Feed, escaping content_text so it stays text', () => {
    const json = parseFeedDocument(fixture('feed.json'));
    expect(json).toMatchObject({
      format: 'json',
      title: 'JSON Journal',
      siteUrl: 'https://json.example.net/',
    });
    expect(json.entries.map((e) => e.guid)).toEqual(['2', '1']);
    expect(json.entries[1]?.contentHtml).toBe('A title-less note in plain text.');
  });

  it('refuses malformed XML, an HTML page and invalid JSON with what the document is', () => {
    expect(() => parseFeedDocument(fixture('malformed.xml'))).toThrow(
      /not a readable RSS, Atom or JSON feed/,
    );
    expect(() => parseFeedDocument(fixture('not-a-feed.html'))).toThrow(/serves an HTML page, not a feed/);
    expect(() => parseFeedDocument('{"version": ')).toThrow(/not valid JSON/);
    expect(() => parseFeedDocument('')).toThrow(FeedFormatError);
  });

  it('refuses a billion-laughs bomb and an external entity before parsing, with the heap unmoved', () => {
    const heap = process.memoryUsage().heapUsed;
    expect(() => parseFeedDocument(fixture('bomb.xml'))).toThrow(/declares XML entities/);
    expect(() => parseFeedDocument(fixture('xxe.xml'))).toThrow(/declares XML entities/);
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(20 * 2 ** 20);
  });

  it('keeps a DOCTYPE without entities (RSS 0.91 names its DTD)', () => {
    expect(fixture('rss091.xml')).toMatch(/<!DOCTYPE rss PUBLIC/);
    expect(parseFeedDocument(fixture('rss091.xml')).entries).toHaveLength(2);
  });
});
