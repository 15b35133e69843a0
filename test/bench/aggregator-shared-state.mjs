// What the shared state costs a call, in process, with the built @toolmesh/aggregator: the same
// proxied call through aggregators whose state is SQLite (the default), Redis with the audit in
// SQLite, and Redis with the audit in PostgreSQL, the machine's own servers (REDIS_URL,
// POSTGRES_URL), under a key prefix and a schema of the run's own, removed afterwards.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Aggregator, openState, parseConfig } from '@toolmesh/aggregator';
import { createLogger } from '@toolmesh/core';
import { connectInMemory } from '@toolmesh/core/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { ECHO_STDIO } from './aggregator-overhead.mjs';
import { check } from './check.mjs';
import { count, table } from './markdown.mjs';
import { interleaved, micros } from './stats.mjs';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function startOn(settings) {
  const { config, servers } = parseConfig({ mcpServers: { echo: ECHO_STDIO } });
  const state = await openState(settings);
  const aggregator = await Aggregator.start({
    config,
    servers,
    state,
    log: createLogger({ level: 'error' }),
    upstream: { pingIntervalMs: 0 },
  });
  const connected = await connectInMemory(aggregator.createSessionServer());
  return {
    state,
    connected,
    async stop() {
      await connected.close();
      await aggregator.stop();
      await state.close();
    },
  };
}

async function removeRunData(prefix, schema) {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

export async function benchmarkSharedState({ folder, calls, warmup, log }) {
  log(`bench: shared state, ${calls} proxied calls each on SQLite, Redis, Redis + PostgreSQL`);
  const tag = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const prefix = `toolmesh-bench:${tag}:`;
  const schema = `toolmesh_bench_${tag}`;
  const started = [];
  try {
    const sqlite = await startOn({ file: path.join(folder, 'sqlite.sqlite') });
    started.push(sqlite);
    const redis = await startOn({
      file: path.join(folder, 'redis.sqlite'),
      redis: REDIS_URL,
      redisKeyPrefix: prefix,
    });
    started.push(redis);
    const postgres = await startOn({
      file: path.join(folder, 'postgres.sqlite'),
      redis: REDIS_URL,
      redisKeyPrefix: prefix,
      postgres: POSTGRES_URL,
      postgresSchema: schema,
    });
    started.push(postgres);
    const call = (connected) => async () => {
      const result = await connected.call('echo__echo', { text: 'ping' });
      check(!result.isError && result.content[0]?.text === 'ping', 'the echo call did not answer ping');
    };
    const timed = await interleaved(
      { sqlite: call(sqlite.connected), redis: call(redis.connected), postgres: call(postgres.connected) },
      { runs: calls, warmup },
    );
    const kept = (await postgres.state.auditRecords({ limit: 1_000_000 })).length;
    check(kept === calls + warmup, `PostgreSQL kept ${kept} audit records of ${calls + warmup} calls`);
    // Where the PostgreSQL audit's cost lies: one committed INSERT, against SQLite's.
    const [sample] = await postgres.state.auditRecords({ limit: 1 });
    const inserts = await interleaved(
      {
        sqlite: () => sqlite.state.recordAudit(sample),
        postgres: () => postgres.state.recordAudit(sample),
      },
      { runs: Math.min(calls, 500), warmup: 20 },
    );
    const health = await postgres.state.health();
    check(
      health.redis?.ok && health.postgres?.ok,
      `the shared state is not healthy: ${JSON.stringify(health)}`,
    );
    return {
      calls,
      warmup,
      sqlite: timed.sqlite.stats,
      redis: timed.redis.stats,
      postgres: timed.postgres.stats,
      inserts: Math.min(calls, 500),
      sqliteInsert: inserts.sqlite.stats,
      postgresInsert: inserts.postgres.stats,
    };
  } finally {
    for (const one of started) await one.stop();
    await removeRunData(prefix, schema);
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
server over stdio, from an in-memory SDK client, through three aggregators in this one process whose state is
the SQLite file (the default), Redis (\`state.redis\`; the audit stays in SQLite), and Redis with the audit in
PostgreSQL (\`state.redis\` + \`state.postgres\`): this machine's Redis 7 and PostgreSQL 15 on loopback. Each
call writes its audit record before it answers (PostgreSQL commits it first). ${count(run.calls)} timed calls
each after ${count(run.warmup)} unmeasured, interleaved call by call; the bench checks that PostgreSQL kept a
record of every call.

${table(
  ['State', 'p50', 'p99', 'Over SQLite at p50', 'Target'],
  [
    row('SQLite file', run.sqlite, ''),
    row('Redis + SQLite audit', run.redis, '≤ +250 µs'),
    row('Redis + PostgreSQL audit', run.postgres, '≤ +250 µs'),
  ],
)}

Where the PostgreSQL audit's cost lies: one audit record written alone, ${count(run.inserts)} times each, interleaved.
Each is committed before it is acknowledged (SQLite: WAL, \`synchronous = FULL\`; PostgreSQL:
\`synchronous_commit = on\`, the WAL flushed with fdatasync), and a call waits for its record, so a call on the
PostgreSQL audit pays the committed INSERT below, a round trip to another process and a flush of its WAL.

${table(
  ['Writing one audit record', 'p50', 'p99'],
  [
    ['SQLite INSERT', `**${micros(run.sqliteInsert.median)}**`, micros(run.sqliteInsert.p99)],
    [
      'PostgreSQL INSERT (committed)',
      `**${micros(run.postgresInsert.median)}**`,
      micros(run.postgresInsert.p99),
    ],
  ],
)}

Reproduce this section alone, after \`pnpm build\`, with Redis and PostgreSQL running (\`REDIS_URL\`,
\`POSTGRES_URL\`): \`node test/bench/run.mjs --only shared-state\` (it rewrites only this section).`;
}
