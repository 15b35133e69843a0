#!/usr/bin/env node
// Compares the three candidate feed parsers on the fixtures in test/fixtures: which formats each
// reads, which fields it keeps (id, link, date, full content), how it fails on bad input, and what
// an entity bomb costs it. Each parse runs in its own child process with a 256 MiB heap, so a bomb
// that blows up one parser cannot take the comparison down. The table is pasted into the README.
// Run: node scripts/compare-parsers.mjs
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const LARGE = '10000 items';
const FIXTURES = [
  ['RSS 0.91', 'rss091.xml'],
  ['RSS 0.92', 'rss092.xml'],
  ['RSS 1.0 (RDF)', 'rdf10.xml'],
  ['RSS 2.0', 'rss20.xml'],
  ['Atom 1.0', 'atom.xml'],
  ['JSON Feed 1.1', 'feed.json'],
  ['malformed XML', 'malformed.xml'],
  ['HTML page', 'not-a-feed.html'],
  ['billion laughs', 'bomb.xml'],
  ['external entity', 'xxe.xml'],
  ['10,000-item RSS 2.0', LARGE],
];
const PARSERS = ['feedsmith', 'rss-parser', '@extractus/feed-extractor'];

/** Runs in the child: parse one file with one parser, print a summary as JSON. */
async function parseOne(parser, file) {
  const text =
    file === LARGE
      ? largeFeed(10_000)
      : readFileSync(new URL(`../test/fixtures/${file}`, import.meta.url), 'utf8');
  const json = file.endsWith('.json');
  const started = performance.now();
  let items;
  if (parser === 'feedsmith') {
    const { parseFeed } = await import('feedsmith');
    const { format, feed } = parseFeed(text);
    items = (format === 'json' ? feed.items : (feed.items ?? feed.entries)) ?? [];
    items = items.map((item) => ({
      id: item.id ?? item.guid?.value ?? item.rdf?.about,
      link: item.url ?? item.link ?? item.links?.[0]?.href,
      title: item.title,
      date: item.date_published ?? item.pubDate ?? item.published ?? item.updated ?? item.dc?.dates?.[0],
      content:
        item.content_html ?? item.content_text ?? item.content?.encoded ?? item.content ?? item.description,
    }));
  } else if (parser === 'rss-parser') {
    if (json) throw new Error('reads XML only');
    const { default: Parser } = await import('rss-parser');
    const feed = await new Parser().parseString(text);
    items = feed.items.map((item) => ({
      id: item.guid ?? item.id,
      link: item.link,
      title: item.title,
      date: item.isoDate ?? item.pubDate,
      content: item['content:encoded'] ?? item.content,
    }));
  } else {
    const { extractFromJson, extractFromXml } = await import('@extractus/feed-extractor');
    const feed = json
      ? extractFromJson(JSON.parse(text), { normalization: true })
      : extractFromXml(text, { normalization: true });
    items = feed.entries.map((item) => ({
      id: item.id,
      link: item.link,
      title: item.title,
      date: item.published,
      content: item.description,
    }));
  }
  const ms = performance.now() - started;
  const longest = Math.max(0, ...items.map((item) => JSON.stringify(item).length));
  const kept = (field) => items.filter((item) => item[field] && String(item[field]).length > 0).length;
  return {
    items: items.length,
    ids: kept('id'),
    links: kept('link'),
    dates: kept('date'),
    content: kept('content'),
    longest,
    ms,
    heapMiB: process.memoryUsage().heapUsed / 2 ** 20,
    leak: items.some((item) => JSON.stringify(item).includes(readHostname())),
  };
}

function largeFeed(count) {
  const items = Array.from(
    { length: count },
    (_, n) =>
      `<item><title>Item ${n}</title><link>https://large.example.com/${n}</link><guid>large-${n}</guid><pubDate>Tue, 05 Mar 2024 09:30:00 GMT</pubDate><description>&lt;p&gt;Body of item ${n}, long enough to be a paragraph of text.&lt;/p&gt;</description></item>`,
  );
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>Large</title><link>https://large.example.com/</link><description>d</description>${items.join('')}</channel></rss>`;
}

function readHostname() {
  try {
    return readFileSync('/etc/hostname', 'utf8').trim() || '\u0000';
  } catch {
    return '\u0000';
  }
}

function cell(outcome) {
  if (outcome.error) return `error: ${outcome.error.split('\n')[0].slice(0, 60)}`;
  const r = outcome.result;
  if (r.leak) return 'read the local file';
  const parts = [
    `${r.items} items`,
    `id ${r.ids}`,
    `link ${r.links}`,
    `date ${r.dates}`,
    `content ${r.content}`,
  ];
  if (r.longest > 100_000) parts.push(`**${(r.longest / 1e6).toFixed(0)} MB expanded**`);
  if (r.items >= 1000) parts.push(`${Math.round(r.ms)} ms`);
  return parts.join(', ');
}

if (process.argv[2] === '--child') {
  parseOne(process.argv[3], process.argv[4])
    .then((result) => process.stdout.write(JSON.stringify({ result })))
    .catch((error) => process.stdout.write(JSON.stringify({ error: String(error.message ?? error) })));
} else {
  const self = fileURLToPath(import.meta.url);
  const rows = [];
  for (const [name, file] of FIXTURES) {
    const row = [name];
    for (const parser of PARSERS) {
      try {
        const out = execFileSync(
          process.execPath,
          ['--max-old-space-size=256', self, '--child', parser, file],
          {
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'ignore'],
            timeout: 60_000,
          },
        );
        row.push(cell(JSON.parse(out)));
      } catch (error) {
        row.push(
          error.signal === 'SIGTERM' ? 'timed out (60 s)' : `crashed (exit ${error.status ?? error.signal})`,
        );
      }
    }
    rows.push(row);
  }
  const header = ['Fixture', ...PARSERS.map((p) => `${p}`)];
  const lines = [header, header.map(() => '---'), ...rows].map((row) => `| ${row.join(' | ')} |`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
