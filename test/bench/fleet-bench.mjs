// A fleet of `toolmesh serve --transport http` replicas on one Redis (a key prefix of its own):
// what a call of a legacy session costs when it lands on a replica that does not own the session
// and is forwarded, against the same call on the owner; the throughput of 1, 2 and 3 replicas;
// and how soon a session is served again by another replica once its owner is killed (SIGKILL).
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { connectHttpClient } from '@toolmesh/core/testing';
import { ECHO_STDIO } from './aggregator-overhead.mjs';
import { check } from './check.mjs';
import { startProcess } from './processes.mjs';
import { interleaved, ms } from './stats.mjs';
import { AGGREGATOR_BIN } from './toolmesh.mjs';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LATENCY_CALLS = 400;
const SESSIONS = 20;
const CALLS_PER_SESSION = 100;
const TAKEOVERS = 3;

/**
 * Replica `index`, with a data directory of its own as each pod or machine of a fleet has: replicas
 * that share one would share its SQLite file, where the audit stays without state.postgres, and
 * queue for its write lock (2 replicas gave 0.60× one that way against 0.99× in the same run).
 */
function startReplica(config, folder, index) {
  const data = path.join(folder, `data-${index}`);
  mkdirSync(data, { recursive: true });
  return startProcess({
    command: process.execPath,
    args: [
      AGGREGATOR_BIN,
      'serve',
      '--config',
      config,
      '--transport',
      'http',
      '--port',
      '0',
      '--log-level',
      'warning',
    ],
    cwd: folder,
    env: { TOOLMESH_DATA_DIR: data },
    ready: /toolmesh is serving MCP at (http:\/\/\S+\/mcp)\b/,
  });
}

/** One tools/call of a session by its id on `url`, as a 2025 client sends it; resolves with its text. */
function callerOf(url, sessionId) {
  let id = 0;
  return async () => {
    const answer = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'tools/call',
        params: { name: 'echo__echo', arguments: { text: 'ping' } },
      }),
    });
    const text = await answer.text();
    check(answer.ok && text.includes('"ping"'), `a fleet call failed: ${answer.status} ${text}`);
  };
}

const THROUGHPUT_ROUNDS = 4;
const WARMUP_CALLS_PER_SESSION = 25;

/** SESSIONS clients, each on one of `urls` as a sticky balancer places them, each warmed up alike. */
async function openSessions(urls) {
  const clients = await Promise.all(
    Array.from({ length: SESSIONS }, (_, i) => connectHttpClient(urls[i % urls.length])),
  );
  // Every replica's call path compiled and warm before anything is timed, whichever served the latency part.
  await Promise.all(
    clients.map(async (client) => {
      for (let i = 0; i < WARMUP_CALLS_PER_SESSION; i++) await client.call('echo__echo', { text: 'warm' });
    }),
  );
  return clients;
}

/** Seconds for every client to make `calls` calls back to back. */
async function timeCalls(clients, calls) {
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      for (let i = 0; i < calls; i++) {
        const result = await client.call('echo__echo', { text: 'ping' });
        check(!result.isError, `a fleet call failed: ${JSON.stringify(result)}`);
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

/**
 * Calls per second of 1, 2 and 3 replicas, measured in alternating rounds (the order rotating)
 * so that the machine's changing load falls on each alike.
 */
async function throughputs(urls, log) {
  const counts = [1, 2, 3];
  const sessions = [];
  try {
    for (const count of counts) sessions.push(await openSessions(urls.slice(0, count)));
    const seconds = counts.map(() => 0);
    const perRound = CALLS_PER_SESSION / THROUGHPUT_ROUNDS;
    for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
      log(`bench fleet: throughput round ${round + 1} of ${THROUGHPUT_ROUNDS}`);
      for (let k = 0; k < counts.length; k++) {
        const index = (round + k) % counts.length;
        seconds[index] += await timeCalls(sessions[index], perRound);
      }
    }
    return counts.map((count, index) => ({
      replicas: count,
      callsPerSecond: (SESSIONS * CALLS_PER_SESSION) / seconds[index],
    }));
  } finally {
    await Promise.allSettled(sessions.flat().map((client) => client.close()));
  }
}

/**
 * From SIGKILL to a session's owner until another replica answers the session's next call (it
 * takes the session over), in ms; each round on a replica started for it.
 */
async function takeover(config, folder, survivorUrl) {
  const doomed = await startReplica(config, folder);
  const owner = await connectHttpClient(doomed.url);
  const sessionId = owner.client.transport.sessionId;
  await owner.call('echo__echo', { text: 'warm' });
  const call = callerOf(survivorUrl, sessionId);
  await call();
  const exited = new Promise((resolve) => {
    const poll = setInterval(() => {
      try {
        process.kill(doomed.pid, 0);
      } catch {
        clearInterval(poll);
        resolve();
      }
    }, 5);
  });
  process.kill(doomed.pid, 'SIGKILL');
  await exited;
  const killedAt = performance.now();
  for (;;) {
    try {
      await call();
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  const servedAfter = performance.now() - killedAt;
  await owner.close().catch(() => undefined);
  await doomed.stop();
  return servedAfter;
}

/** Runs the fleet benchmarks in `base`; returns the figures for renderFleetSection. */
export async function benchmarkFleet({ base, log }) {
  const folder = path.join(base, 'fleet');
  mkdirSync(folder, { recursive: true });
  const config = path.join(folder, 'fleet.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { echo: ECHO_STDIO },
      auth: { required: false },
      state: { redis: REDIS_URL, redisPrefix: `toolmesh-bench-${randomBytes(4).toString('hex')}:` },
    }),
  );
  const replicas = [];
  try {
    for (let i = 0; i < 3; i++) replicas.push(await startReplica(config, folder, i));
    const urls = replicas.map((replica) => replica.url);
    log('bench fleet: a call on the owner vs the same call forwarded by another replica');
    const owner = await connectHttpClient(urls[0]);
    const sessionId = owner.client.transport.sessionId;
    const { local, forwarded } = await interleaved(
      { local: callerOf(urls[0], sessionId), forwarded: callerOf(urls[1], sessionId) },
      { runs: LATENCY_CALLS, warmup: 20 },
    );
    await owner.close();
    const perReplicas = await throughputs(urls, log);
    log(`bench fleet: a session's owner killed (SIGKILL), ${TAKEOVERS} times`);
    const takeovers = [];
    for (let i = 0; i < TAKEOVERS; i++) takeovers.push(await takeover(config, folder, urls[0]));
    return { local: local.stats, forwarded: forwarded.stats, perReplicas, takeovers, load: os.loadavg()[0] };
  } finally {
    for (const replica of replicas) await replica.stop();
  }
}

function takeoverSection(run) {
  if (!run.takeovers) return '';
  const sorted = [...run.takeovers].sort((a, b) => a - b);
  return `A session whose owner is killed with SIGKILL, its next call sent to another replica (the
client retrying at once on each failure): served again after **${ms(sorted[Math.floor(sorted.length / 2)])}**
(median of ${sorted.length}; slowest ${ms(sorted.at(-1))}; target: within 10 s). The dead replica's address
refuses connections, so the first replica to try forwarding declares it gone and takes the session
over at once; a replica whose host vanished without refusing (no RST) is taken over only once its
heartbeat expires (9 s), and requests forwarded to it meanwhile wait for their client's timeout.

`;
}

export function renderFleetSection(run) {
  const one = run.perReplicas[0].callsPerSecond;
  const rows = run.perReplicas
    .map(
      ({ replicas, callsPerSecond }) =>
        `| ${replicas} | ${Math.round(callsPerSecond)} | ${(callsPerSecond / one).toFixed(2)}× |`,
    )
    .join('\n');
  return `## fleet: replicas on one Redis

Three \`toolmesh serve --transport http\` replicas on one config and the machine's Redis (a key
prefix per run), echo over stdio behind each, each with a data directory of its own, as each pod of a
fleet has (the audit stays in each replica's SQLite file: no \`state.postgres\` here). A legacy session's \`tools/call\` sent to the replica
that owns it, and the same call sent to another replica, which forwards it (${LATENCY_CALLS} of each,
interleaved, one at a time):

| call | p50 | p95 |
|---|---|---|
| on the owner | **${ms(run.local.median)}** | ${ms(run.local.p95)} |
| forwarded by another replica | **${ms(run.forwarded.median)}** | ${ms(run.forwarded.p95)} |

A forward adds **${ms(run.forwarded.median - run.local.median)}** at p50 (target ≤ +0.5 ms). The forwarding replica
reads where a session lives once a second at most (docs/deployment.md), so what a forward costs here is the
extra hop: one more process to wake and one more loopback HTTP exchange, which a busy machine makes slow.

Throughput: ${SESSIONS} sessions, ${CALLS_PER_SESSION} calls each back to back, the sessions spread over the
replicas as a sticky balancer places them (each client straight to its replica). Every session first makes
${WARMUP_CALLS_PER_SESSION} unmeasured calls, so each replica is warm whatever it did before; the calls are timed
in ${THROUGHPUT_ROUNDS} rounds that alternate between 1, 2 and 3 replicas (the order rotating), so that the
machine's changing load falls on each alike:

| replicas | calls/s | vs one |
|---|---|---|
${rows}

${takeoverSection(run)}Replicas that share one data directory share its SQLite file, and without \`state.postgres\` every call's
audit record queues for that file's write lock across processes (SQLite's busy wait sleeps a millisecond
and more): measured in one run at a load of 26, two replicas so gave 0.60× one, against 0.99× with a data
directory each. Give each replica its own (docs/deployment.md), or put the audit in PostgreSQL.

On 2 cores the replicas and their echo servers share the same two cores: more replicas cannot add
throughput here, only must not collapse it (target: 2 replicas ≥ 0.9× one). Scaling has to be
measured on a machine with more cores than replicas.

Load average (1 min) at the end of the run: ${run.load.toFixed(1)} on ${os.cpus().length} cores. On a machine this
busy every figure above is mostly waiting for a core; check the targets on an idle one.

Reproduce: \`pnpm build && node test/bench/run.mjs --only fleet\` (needs Redis at REDIS_URL).
`;
}
