// The feeds server's benchmarks: the built toolmesh-feeds spawned over real stdio and driven by the
// real MCP SDK client, refreshing 200 feeds served by an HTTP server on 127.0.0.1 in this process
// (cold, then every feed answering 304); parse throughput of the engine on a 10,000-item feed; and
// search_articles over 100,000 articles written through the engine.
// `node test/bench/feeds-bench.mjs` runs it alone and prints its section.
import { createHash } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { spawnStdioClient } from '@toolmesh/core/testing';
import { check } from './check.mjs';
import { count, table } from './markdown.mjs';
import { runAloneWhenMain } from './run-alone.mjs';
import { measure, ms } from './stats.mjs';

const FEEDS_DIST = new URL('../../servers/feeds/dist/', import.meta.url);
const FEEDS_BIN = fileURLToPath(new URL('index.js', FEEDS_DIST));
const FEEDS = 200;
const ITEMS_PER_FEED = 20;
const WARM_RUNS = 5;
const PARSED_ITEMS = 10_000;
const PARSE_RUNS = 5;
const STORED_FEEDS = 100;
const STORED_PER_FEED = 1_000;
const SEARCH_RUNS = 40;

/** Each topic has its own words, so a query matches the share of articles a real corpus would give it. */
const TOPICS = {
  postgres: ['vacuum', 'autovacuum', 'bloat', 'replication', 'planner'],
  kubernetes: ['scheduler', 'pods', 'operator', 'ingress', 'autoscaler'],
  rust: ['borrow', 'checker', 'lifetimes', 'async', 'traits'],
  typescript: ['generics', 'inference', 'decorators', 'narrowing', 'enums'],
  webassembly: ['component', 'wasi', 'runtime', 'sandbox', 'threads'],
  sqlite: ['wal', 'checkpoint', 'fts5', 'pragma', 'btree'],
  tls: ['certificate', 'handshake', 'ocsp', 'cipher', 'session'],
  http3: ['quic', 'congestion', 'streams', 'datagram', 'latency'],
  llm: ['tokenizer', 'attention', 'quantization', 'context', 'agents'],
  css: ['grid', 'cascade', 'container', 'layers', 'selectors'],
};
const TOPIC_NAMES = Object.keys(TOPICS);
const VERBS = ['ships', 'deprecates', 'benchmarks', 'explains', 'breaks', 'patches', 'rewrites', 'profiles'];
const SEARCHES = [
  'postgres vacuum',
  'kubernetes patches scheduler',
  'rust borrow checker',
  'sqlite wal checkpoint',
];

function itemXml(feed, n) {
  const topic = TOPIC_NAMES[(feed + n) % TOPIC_NAMES.length];
  const words = TOPICS[topic];
  const verb = VERBS[(feed * 3 + n) % VERBS.length];
  // The topic's first two words always, one of the other three by turns.
  const picked = [words[0], words[1], words[2 + (n % 3)]].join(', ');
  return `<item><title>${topic} ${verb} release ${feed}.${n}</title><link>https://feed${feed}.example.com/posts/${n}</link><guid>f${feed}-${n}</guid><pubDate>${new Date(Date.UTC(2024, 0, 1) + (feed * 1000 + n) * 60_000).toUTCString()}</pubDate><description>&lt;p&gt;The ${topic} team ${verb} a change touching ${picked}; item ${n} of feed ${feed}.&lt;/p&gt;&lt;script&gt;track()&lt;/script&gt;</description></item>`;
}

function feedXml(feed, items) {
  const body = Array.from({ length: items }, (_, n) => itemXml(feed, n)).join('');
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>Feed ${feed}</title><link>https://feed${feed}.example.com/</link><description>bench</description>${body}</channel></rss>`;
}

/** 200 RSS feeds with ETags; a request carrying the current ETag gets a 304. */
async function startServer() {
  const documents = Array.from({ length: FEEDS }, (_, feed) => {
    const body = Buffer.from(feedXml(feed, ITEMS_PER_FEED));
    return { body, etag: `"${createHash('sha1').update(body).digest('hex').slice(0, 16)}"` };
  });
  let requests = 0;
  let notModified = 0;
  const server = http.createServer((request, response) => {
    requests++;
    const match = /^\/feed\/(\d+)\.xml$/.exec(request.url ?? '');
    const document = match ? documents[Number(match[1])] : undefined;
    if (!document) return void response.writeHead(404).end();
    if (request.headers['if-none-match'] === document.etag) {
      notModified++;
      return void response.writeHead(304, { etag: document.etag }).end();
    }
    response
      .writeHead(200, { 'content-type': 'application/rss+xml', etag: document.etag })
      .end(document.body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    counts: () => ({ requests, notModified }),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

function opmlOf(url) {
  const outlines = Array.from(
    { length: FEEDS },
    (_, feed) => `<outline text="Feed ${feed}" type="rss" xmlUrl="${url}/feed/${feed}.xml"/>`,
  ).join('');
  return `<?xml version="1.0"?><opml version="2.0"><head><title>bench</title></head><body>${outlines}</body></opml>`;
}

async function benchmarkRefresh({ base, log }) {
  const server = await startServer();
  const client = await spawnStdioClient(process.execPath, [
    FEEDS_BIN,
    '--db',
    path.join(base, 'refresh.db'),
    '--allow-private-network',
    '--no-schedule',
  ]);
  try {
    const imported = await client.call('import_opml', { opml: opmlOf(server.url) });
    check(
      !imported.isError && imported.structuredContent.added.length === FEEDS,
      'import_opml did not add 200 feeds',
    );
    log(`bench feeds: refresh_feeds, ${FEEDS} feeds cold`);
    const started = performance.now();
    const cold = await client.call('refresh_feeds', {});
    const coldMs = performance.now() - started;
    check(!cold.isError, `refresh_feeds failed: ${JSON.stringify(cold.content)}`);
    check(
      cold.structuredContent.totals.new === FEEDS * ITEMS_PER_FEED,
      'the cold refresh did not store every article',
    );
    log(`bench feeds: refresh_feeds, ${FEEDS} feeds all 304, ${WARM_RUNS} runs`);
    const before = server.counts().notModified;
    const warm = await measure(() => client.call('refresh_feeds', {}), { runs: WARM_RUNS, warmup: 0 });
    check(warm.result.structuredContent.totals.notModified === FEEDS, 'the warm refresh was not all 304');
    check(
      server.counts().notModified - before === FEEDS * WARM_RUNS,
      'the server did not answer 304 to every warm fetch',
    );
    return { coldMs, warm: warm.stats };
  } finally {
    await client.close();
    await server.close();
  }
}

async function benchmarkParse({ base, log }) {
  const { FeedStore, parseFeedDocument } = await import(new URL('server.js', FEEDS_DIST).href);
  const xml = feedXml(0, PARSED_ITEMS);
  log(
    `bench feeds: parsing a ${count(PARSED_ITEMS)}-item feed (${(xml.length / 2 ** 20).toFixed(1)} MiB), ${PARSE_RUNS} runs`,
  );
  const parse = await measure(() => parseFeedDocument(xml), { runs: PARSE_RUNS, warmup: 1 });
  check(parse.result.entries.length === PARSED_ITEMS, 'the parser lost entries');
  const store = new FeedStore(path.join(base, 'parse.db'));
  const times = [];
  for (let run = 0; run < PARSE_RUNS; run++) {
    const feed = store.addFeed({ url: `https://parse.example/${run}` });
    const started = performance.now();
    const { entries } = parseFeedDocument(xml);
    const counts = store.recordSuccess(
      feed.id,
      { etag: null, lastModified: null, title: 'p', siteUrl: null, ttlMinutes: null },
      entries,
      feed.url,
    );
    times.push(performance.now() - started);
    check(counts.new === PARSED_ITEMS, 'ingest lost entries');
  }
  store.close();
  times.sort((a, b) => a - b);
  return { parse: parse.stats, ingestMedian: times[Math.floor(times.length / 2)], bytes: xml.length };
}

async function benchmarkSearch({ base, log }) {
  const { FeedStore, parseFeedDocument } = await import(new URL('server.js', FEEDS_DIST).href);
  const file = path.join(base, 'search.db');
  const store = new FeedStore(file);
  log(`bench feeds: writing ${count(STORED_FEEDS * STORED_PER_FEED)} articles through the engine`);
  const fillStarted = performance.now();
  for (let feed = 0; feed < STORED_FEEDS; feed++) {
    const added = store.addFeed({ url: `https://feed${feed}.example.com/rss` });
    const { entries } = parseFeedDocument(feedXml(feed, STORED_PER_FEED));
    store.recordSuccess(
      added.id,
      { etag: null, lastModified: null, title: `Feed ${feed}`, siteUrl: null, ttlMinutes: null },
      entries,
      added.url,
    );
  }
  const fillMs = performance.now() - fillStarted;
  store.close();
  const client = await spawnStdioClient(process.execPath, [FEEDS_BIN, '--db', file, '--no-schedule']);
  try {
    const searches = [];
    for (const query of SEARCHES) {
      log(`bench feeds: search_articles "${query}"`);
      const run = await measure(() => client.call('search_articles', { query, limit: 20 }), {
        runs: SEARCH_RUNS,
        warmup: 3,
      });
      check(!run.result.isError, `search_articles "${query}" failed`);
      check(run.result.structuredContent.hits.length > 0, `search_articles "${query}" found nothing`);
      searches.push({ query, shown: run.result.structuredContent.hits.length, stats: run.stats });
    }
    const digest = await measure(() => client.call('get_unread_digest', {}), {
      runs: SEARCH_RUNS,
      warmup: 3,
    });
    const list = await measure(() => client.call('list_articles', { feed_id: 7, unread: true }), {
      runs: SEARCH_RUNS,
      warmup: 3,
    });
    check(digest.result.structuredContent.articles.length > 0, 'get_unread_digest showed nothing');
    check(list.result.structuredContent.articles.length > 0, 'list_articles showed nothing');
    return {
      fillMs,
      searches,
      digest: { shown: digest.result.structuredContent.articles.length, stats: digest.stats },
      list: { shown: list.result.structuredContent.articles.length, stats: list.stats },
    };
  } finally {
    await client.close();
  }
}

/** Runs the feeds benchmarks in `base`; returns the figures for renderFeedsSection. */
export async function benchmarkFeeds({ base, log }) {
  const refresh = await benchmarkRefresh({ base, log });
  const parse = await benchmarkParse({ base, log });
  const search = await benchmarkSearch({ base, log });
  return { refresh, parse, search };
}

export function renderFeedsSection({ refresh, parse, search }) {
  const perSecond = (items, msValue) => count(Math.round(items / (msValue / 1000)));
  const stored = STORED_FEEDS * STORED_PER_FEED;
  return `## feeds server

The built \`servers/feeds/dist/index.js\` is spawned over real stdio (\`--allow-private-network --no-schedule\`) and
driven by the real MCP SDK client; the feeds come from an HTTP server on 127.0.0.1 in the bench process, so the
network is loopback and the figures measure the reader, not the internet. The machine is shared: figures are
noisy. The issue names no peer to compare with.

**Refreshing ${FEEDS} feeds** of ${ITEMS_PER_FEED} items each (imported with \`import_opml\`, fetched 6 at a time):

${table(
  ['Call', 'Time', 'Per feed'],
  [
    [
      `refresh_feeds, cold (${count(FEEDS * ITEMS_PER_FEED)} new articles)`,
      `**${ms(refresh.coldMs)}**`,
      ms(refresh.coldMs / FEEDS),
    ],
    [
      `refresh_feeds, every feed 304 (p50 of ${WARM_RUNS})`,
      `**${ms(refresh.warm.median)}**`,
      ms(refresh.warm.median / FEEDS),
    ],
  ],
)}

**Parse throughput** on one ${count(PARSED_ITEMS)}-item RSS 2.0 document (${(parse.bytes / 2 ** 20).toFixed(1)} MiB), in process:
parsing alone (feedsmith and the adapter, p50 of ${PARSE_RUNS}) **${ms(parse.parse.median)}**, ${perSecond(PARSED_ITEMS, parse.parse.median)} articles/s;
parsing, reducing each article's HTML to markdown, dedup and storing in SQLite (median of ${PARSE_RUNS})
**${ms(parse.ingestMedian)}**, ${perSecond(PARSED_ITEMS, parse.ingestMedian)} articles/s.

**Reads over ${count(stored)} articles** (${STORED_FEEDS} feeds of ${count(STORED_PER_FEED)}, written through the engine in
${ms(search.fillMs)}, ${perSecond(stored, search.fillMs)} articles/s), each call timed ${SEARCH_RUNS} times after three warm-ups, round
trip included. A topic's words are in a tenth of the articles, so three of the searches rank 10,000 matches
and "kubernetes patches scheduler" 2,500; \`Shown\` is what the default 4,000-byte budget lets through.

${table(
  ['Call', 'Shown', 'p50', 'p95'],
  [
    ...search.searches.map((s) => [
      `search_articles "${s.query}" (limit 20)`,
      String(s.shown),
      `**${ms(s.stats.median)}**`,
      ms(s.stats.p95),
    ]),
    [
      'get_unread_digest (default budget)',
      String(search.digest.shown),
      `**${ms(search.digest.stats.median)}**`,
      ms(search.digest.stats.p95),
    ],
    [
      'list_articles feed 7, unread',
      String(search.list.shown),
      `**${ms(search.list.stats.median)}**`,
      ms(search.list.stats.p95),
    ],
  ],
)}

Reproduce: \`pnpm build && node test/bench/run.mjs --only feeds\`.
`;
}

runAloneWhenMain(import.meta.url, 'feeds', benchmarkFeeds, renderFeedsSection);
