// What the shared state costs a call, in process, with the built @toolmesh/aggregator: the same
// proxied call through aggregators whose state is SQLite (the default), Redis with the audit in
// SQLite, and Redis with the audit in PostgreSQL (acknowledged buffered, the default, and
// flushed), the machine's own servers (REDIS_URL, POSTGRES_URL), under a key prefix and schemas
// of the run's own, removed afterwards.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openState } from '@toolmesh/aggregator';
import { removeRunState, runStateSettings } from '@toolmesh/aggregator/testing';
import { check } from './check.mjs';
import { echoCall, startInProcess } from './in-process-aggregator.mjs';
import { count, table } from './markdown.mjs';
import { interleaved, micros } from './stats.mjs';

/** The states compared, by name: how runStateSettings makes each, and the audit's commit policy. */
const STATES = {
  sqlite: { kind: 'sqlite' },
  redis: { kind: 'redis' },
  postgres: { kind: 'redis+postgres', auditCommit: 'buffered' },
  postgresFlushed: { kind: 'redis+postgres', auditCommit: 'flushed' },
};

export async function benchmarkSharedState({ folder, calls, warmup, log }) {
  log(
    `bench: shared state, ${calls} proxied calls each on SQLite, Redis, Redis + PostgreSQL (buffered, flushed)`,
  );
  const tag = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const started = {};
  const settings = [];
  try {
    for (const [name, { kind, auditCommit }] of Object.entries(STATES)) {
      const own = path.join(folder, name);
      mkdirSync(own, { recursive: true });
      const one = {
        ...runStateSettings(kind, own, `${tag}_${name.toLowerCase()}`),
        ...(auditCommit && { auditCommit }),
      };
      settings.push(one);
      started[name] = await startInProcess(await openState(one));
    }
    const timed = await interleaved(
      Object.fromEntries(Object.entries(started).map(([name, one]) => [name, echoCall(one)])),
      { runs: calls, warmup },
    );
    for (const name of ['postgres', 'postgresFlushed']) {
      const kept = (await started[name].state.auditRecords({ limit: 1_000_000 })).length;
      check(
        kept === calls + warmup,
        `PostgreSQL (${name}) kept ${kept} audit records of ${calls + warmup} calls`,
      );
    }
    // Where the PostgreSQL audit's cost lies: one record written alone, against SQLite's INSERT.
    const [sample] = await started.postgres.state.auditRecords({ limit: 1 });
    const inserts = await interleaved(
      Object.fromEntries(
        ['sqlite', 'postgres', 'postgresFlushed'].map((name) => [
          name,
          () => started[name].state.recordAudit(sample),
        ]),
      ),
      { runs: Math.min(calls, 500), warmup: 20 },
    );
    const health = await started.postgres.state.health();
    check(
      health.redis?.ok && health.postgres?.ok,
      `the shared state is not healthy: ${JSON.stringify(health)}`,
    );
    return {
      calls,
      warmup,
      ...Object.fromEntries(Object.entries(timed).map(([name, { stats }]) => [name, stats])),
      inserts: Math.min(calls, 500),
      sqliteInsert: inserts.sqlite.stats,
      postgresInsert: inserts.postgres.stats,
      postgresFlushedInsert: inserts.postgresFlushed.stats,
      load: os.loadavg()[0],
    };
  } finally {
    for (const one of Object.values(started)) await one.stop();
    for (const one of settings) await removeRunState(one);
  }
}

/** The shared state's section; `node test/bench/run.mjs --only shared-state` rewrites it alone. */
export function renderSharedStateSection({ sharedState: run }) {
  const over = (stats) => stats.median - run.sqlite.median;
  const signed = (ms) => `${ms >= 0 ? '+' : '−'}${micros(Math.abs(ms))}`;
  const row = (name, stats, target) => [
    name,
    `**${micros(stats.median)}**`,
    micros(stats.p99),
    stats === run.sqlite ? '—' : `**${signed(over(stats))}**`,
    target,
  ];
  return `### Shared state (Redis, PostgreSQL)

What a call pays when the state is shared by replicas (issue 23): the call is \`echo__echo\` on the bench's echo
server over stdio, from an in-memory SDK client, through four aggregators in this one process whose state is
the SQLite file (the default), Redis (\`state.redis\`; the audit stays in SQLite), and Redis with the audit in
PostgreSQL (\`state.redis\` + \`state.postgres\`), its records acknowledged \`buffered\` (the default
\`state.auditCommit\`: committed with \`synchronous_commit = off\`) or \`flushed\` (\`synchronous_commit = on\`):
this machine's Redis 7 and PostgreSQL 15 on loopback. Each call waits for its audit record before it answers.
${count(run.calls)} timed calls each after ${count(run.warmup)} unmeasured, interleaved call by call; the bench
checks that PostgreSQL kept a record of every call. What each policy promises: docs/deployment.md.

${table(
  ['State', 'p50', 'p99', 'Over SQLite at p50', 'Target'],
  [
    row('SQLite file', run.sqlite, ''),
    row('Redis + SQLite audit', run.redis, '≤ +250 µs'),
    row('Redis + PostgreSQL audit, buffered (default)', run.postgres, '≤ +250 µs'),
    row('Redis + PostgreSQL audit, flushed', run.postgresFlushed, ''),
  ],
)}

Where the PostgreSQL audit's cost lies: one audit record written alone, ${count(run.inserts)} times each, interleaved.
SQLite commits in WAL mode with \`synchronous = NORMAL\` (written to its WAL, not fsynced). PostgreSQL \`flushed\` waits for its WAL to be flushed
to disk (fdatasync) on every commit that no other call's commit shared; \`buffered\` is one round trip to
PostgreSQL, which commits to its WAL buffers and flushes them within about 3 × \`wal_writer_delay\`. Records of
calls that end together go as one prepared INSERT (group commit), so under load they share that round trip and
that flush.

${table(
  ['Writing one audit record', 'p50', 'p99'],
  [
    ['SQLite INSERT', `**${micros(run.sqliteInsert.median)}**`, micros(run.sqliteInsert.p99)],
    [
      'PostgreSQL INSERT, buffered',
      `**${micros(run.postgresInsert.median)}**`,
      micros(run.postgresInsert.p99),
    ],
    [
      'PostgreSQL INSERT, flushed',
      `**${micros(run.postgresFlushedInsert.median)}**`,
      micros(run.postgresFlushedInsert.p99),
    ],
  ],
)}

Load average (1 min) when the section ended: ${run.load.toFixed(1)} on 2 cores shared with other work.

Reproduce this section alone, after \`pnpm build\`, with Redis and PostgreSQL running (\`REDIS_URL\`,
\`POSTGRES_URL\`): \`node test/bench/run.mjs --only shared-state\` (it rewrites only this section).`;
}
