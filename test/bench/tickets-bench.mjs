import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { spawnStdioClient } from '@toolmesh/core/testing';
import { check } from './check.mjs';
import { startFacts } from './machine.mjs';
import { count, table } from './markdown.mjs';
import { runAloneWhenMain } from './run-alone.mjs';
import { measure, ms } from './stats.mjs';

const TICKETS_DIST = new URL('../../servers/tickets/dist/', import.meta.url);
const TICKETS_BIN = fileURLToPath(new URL('index.js', TICKETS_DIST));
const STORED = 100_000;
const CREATED = 10_000;
const BATCH = 50;
const RUNS = 60;
const WORKSPACE = 'bench';

const SUBJECTS = [
  'login',
  'checkout',
  'invoice',
  'search index',
  'webhook',
  'cache',
  'export',
  'billing',
  'upload',
  'session',
];
const PROBLEMS = [
  'times out',
  'returns 500',
  'leaks memory',
  'is slow',
  'drops events',
  'double-charges',
  'logs secrets',
  'fails on retry',
];
const LABELS = ['bug', 'backend', 'frontend', 'infra', 'security', 'perf', 'docs', 'ux'];
const STATUSES = ['backlog', 'todo', 'in_progress', 'in_review', 'done', 'failed', 'cancelled'];
const PRIORITIES = ['P0', 'P1', 'P2', 'P3'];
const AGENTS = ['planner', 'coder', 'reviewer', 'tester', 'ops'];

/** A varied, reproducible ticket: the n-th of the database. */
function ticketNumber(n) {
  const subject = SUBJECTS[n % SUBJECTS.length];
  const problem = PROBLEMS[(n * 7) % PROBLEMS.length];
  return {
    title: `${subject} ${problem} (case ${n})`,
    description: `When a user hits the ${subject} path under load it ${problem}. Seen in region ${n % 13}; trace id ${(n * 2654435761) % 4294967296}.`,
    status: STATUSES[(n * 3) % STATUSES.length],
    priority: PRIORITIES[(n * 5) % PRIORITIES.length],
    labels: [LABELS[n % LABELS.length], LABELS[(n * 11) % LABELS.length]].filter(
      (v, i, all) => all.indexOf(v) === i,
    ),
    assignee: { agent: AGENTS[n % AGENTS.length] },
  };
}

const LISTS = [
  { name: 'status todo, label security, sorted by priority', args: { status: ['todo'], label: 'security' } },
  {
    name: 'assignee coder, priority P0 or P1, sorted by updated',
    args: { assignee: 'coder', priority: ['P0', 'P1'], sort: 'updated' },
  },
  { name: 'status in_progress, text "webhook"', args: { status: ['in_progress'], text: 'webhook' } },
];
const SEARCHES = [
  'checkout double-charges',
  'upload leaks memory',
  'region 7 trace',
  'webhook drops events',
  // Every word in every ticket: nothing to rank by, so the newest matches come first.
  'user region trace',
];

/** Runs the tickets benchmarks in `base`; returns the figures for renderTicketsSection. */
export async function benchmarkTickets({ base, log }) {
  const { SqliteTicketStore } = await import(new URL('server.js', TICKETS_DIST).href);
  const file = path.join(base, 'tickets.db');
  log(`bench tickets: writing ${count(STORED)} tickets through the engine`);
  const { load } = startFacts();
  const store = new SqliteTicketStore(file);
  const fillStarted = performance.now();
  for (let first = 0; first < STORED; first += BATCH) {
    const batch = Array.from({ length: BATCH }, (_, k) => ticketNumber(first + k));
    store.create({ workspace: WORKSPACE, identity: 'bench' }, batch);
  }
  const fillMs = performance.now() - fillStarted;
  store.shutdown();

  const server = await spawnStdioClient(process.execPath, [
    TICKETS_BIN,
    '--db',
    file,
    '--workspace',
    WORKSPACE,
  ]);
  try {
    const lists = [];
    for (const list of LISTS) {
      log(`bench tickets: list_tickets ${list.name}`);
      const run = await measure(() => server.call('list_tickets', list.args), { runs: RUNS, warmup: 3 });
      check(!run.result.isError, `list_tickets ${list.name} failed`);
      check(run.result.structuredContent.tickets.length > 0, `list_tickets ${list.name} found nothing`);
      lists.push({ name: list.name, shown: run.result.structuredContent.tickets.length, stats: run.stats });
    }
    const searches = [];
    for (const query of SEARCHES) {
      log(`bench tickets: search_tickets "${query}"`);
      const run = await measure(() => server.call('search_tickets', { query, limit: 20 }), {
        runs: RUNS,
        warmup: 3,
      });
      check(!run.result.isError, `search_tickets "${query}" failed`);
      check(run.result.structuredContent.hits.length > 0, `search_tickets "${query}" found nothing`);
      const { hits, note } = run.result.structuredContent;
      searches.push({ query, shown: hits.length, newestFirst: note !== undefined, stats: run.stats });
    }
    log(`bench tickets: create_ticket, ${count(CREATED)} tickets in batches of ${BATCH}`);
    const createStarted = performance.now();
    for (let first = STORED; first < STORED + CREATED; first += BATCH) {
      const tickets = Array.from({ length: BATCH }, (_, k) => ticketNumber(first + k));
      const result = await server.call('create_ticket', { tickets });
      check(!result.isError, `create_ticket failed: ${JSON.stringify(result.content)}`);
    }
    const createMs = performance.now() - createStarted;
    return { load, fillMs, lists, searches, createMs };
  } finally {
    await server.close();
  }
}

export function renderTicketsSection(run) {
  const row = (name, shown, stats) => [name, String(shown), `**${ms(stats.median)}**`, ms(stats.p95)];
  return `## tickets server

${count(STORED)} tickets in one workspace are written through the engine (\`SqliteTicketStore\`, batches of
${BATCH}, one transaction and event rows each: ${ms(run.fillMs)}, ${count(Math.round(STORED / (run.fillMs / 1000)))} tickets/s) into
a SQLite file in a temporary folder. The built \`servers/tickets/dist/index.js\` is then spawned on it over real
stdio and driven by the real MCP SDK client; each call is timed ${RUNS} times after three warm-ups, round trip
included. Target: list and search p50 under 10 ms. The issue names no peer to compare with. Load average when
the section started: ${run.load} on ${os.cpus().length} cores shared with other work, so the figures are noisy.
\`node test/bench/run.mjs --only tickets\` (after \`pnpm build\`) runs this section alone and rewrites it.

${table(
  ['Call', 'Shown', 'p50', 'p95'],
  [
    ...run.lists.map((list) => row(`list_tickets: ${list.name}`, list.shown, list.stats)),
    ...run.searches.map((search) =>
      row(
        `search_tickets "${search.query}"${search.newestFirst ? ' (newest first)' : ''}`,
        search.shown,
        search.stats,
      ),
    ),
  ],
)}

Creating ${count(CREATED)} more tickets through \`create_ticket\` (${CREATED / BATCH} calls of ${BATCH}, on the
100,000-ticket file): **${ms(run.createMs)}**, ${count(Math.round(CREATED / (run.createMs / 1000)))} tickets/s.

"user region trace" has every word in every ticket: BM25 weighs none of them (a word in half the tickets or more
gets an IDF of 1e-6), so there is nothing to rank by, and the search shows the newest matches first, said in its
\`note\`; FTS5 reads \`ORDER BY rowid DESC LIMIT n\` down the doclists and stops after n, where ranking read
all of them. "region 7 trace" ranks by "7" (in one ticket of 13) and only filters by the two others: bm25
scores the 7,692 tickets with "7" and keeps the best (a top-n sort), and those are checked for the other two.
\`list_tickets\` counts its matches up to 1,000 and then says \`totalAtLeast\`: an exact \`total\` for "status
todo, label security" read all 1,786 matches through 14,285 label lookups, most of that call's time.
`;
}

runAloneWhenMain(import.meta.url, 'tickets', benchmarkTickets, renderTicketsSection);
