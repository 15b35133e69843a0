// A fleet of `toolmesh serve --transport http` replicas on one Redis (a key prefix of its own):
// what a call of a legacy session costs when it lands on a replica that does not own the session
// and is forwarded, against the same call on the owner; the throughput of 1, 2 and 3 replicas;
// and how soon a session is served again by another replica once its owner is killed (SIGKILL).
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { connectHttpClient, eventStreamAnswer } from '@toolmesh/core/testing';
import { ECHO_STDIO } from './aggregator-overhead.mjs';
import { check } from './check.mjs';
import { machineBusyMs, treeCpuMsOf } from './cpu-time.mjs';
import { startProcess } from './processes.mjs';
import { interleaved, micros, ms } from './stats.mjs';
import { AGGREGATOR_BIN } from './toolmesh.mjs';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LATENCY_CALLS = 400;
/** Unmeasured calls of each kind first: the forward's path runs interpreted for its first hundreds. */
const LATENCY_WARMUP = 2000;
/** Calls of each kind whose CPU is counted, in alternating blocks: /proc counts in 10 ms ticks. */
const CPU_CALLS = 1200;
const CPU_BLOCK = 100;
export const HOP_PROXY = fileURLToPath(new URL('./hop-proxy.mjs', import.meta.url));
const SESSIONS = 20;
const CALLS_PER_SESSION = 400;
const TAKEOVERS = 3;

/**
 * Replica `index`, with a data directory of its own as each pod or machine of a fleet has: replicas
 * that share one would share its SQLite file, where the audit stays without state.postgres, and
 * queue for its write lock (2 replicas gave 0.60× one that way against 0.99× in the same run).
 */
export function startReplica(config, folder, index, bin = AGGREGATOR_BIN) {
  const data = path.join(folder, `data-${index}`);
  mkdirSync(data, { recursive: true });
  return startProcess({
    command: process.execPath,
    args: [bin, 'serve', '--config', config, '--transport', 'http', '--port', '0', '--log-level', 'warning'],
    cwd: folder,
    env: { TOOLMESH_DATA_DIR: data },
    ready: /toolmesh is serving MCP at (http:\/\/\S+\/mcp)\b/,
  });
}

/**
 * One tools/call of a session by its id on `url`, as a 2025 client sends it over one kept-alive
 * connection, as a balancer's connection carries it; resolves once the answer, checked, is read.
 * Plain node:http rather than fetch or the SDK client: those cost this process 0.6–1 ms of CPU a
 * call, and on 2 cores a load generator that heavy takes its core from the replicas it measures.
 * `close()` ends the kept-alive connection.
 */
export function callerOf(url, sessionId) {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let id = 0;
  const call = () =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'tools/call',
        params: { name: 'echo__echo', arguments: { text: 'ping' } },
      });
      const request = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            accept: 'application/json, text/event-stream',
            'mcp-session-id': sessionId,
            'mcp-protocol-version': '2025-06-18',
          },
        },
        (answer) => {
          let text = '';
          answer.setEncoding('utf8');
          answer.on('data', (chunk) => {
            text += chunk;
          });
          answer.on('end', () => {
            try {
              const eventStream = answer.headers['content-type']?.startsWith('text/event-stream');
              const result = (eventStream ? eventStreamAnswer(text) : JSON.parse(text))?.result;
              check(
                answer.statusCode === 200 && !result?.isError && result?.content?.[0]?.text === 'ping',
                `a fleet call failed: ${answer.statusCode} ${text}`,
              );
              resolve();
            } catch (error) {
              reject(error);
            }
          });
          answer.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  call.close = () => agent.destroy();
  return call;
}

const THROUGHPUT_ROUNDS = 4;
/** Per session: each process then serves 1,800 or more unmeasured calls before any is timed. */
const WARMUP_CALLS_PER_SESSION = 300;

/**
 * SESSIONS sessions, each opened on one of `urls` as a sticky balancer places them, and a caller
 * of each; every one warmed up alike.
 */
async function openSessions(urls) {
  const clients = await Promise.all(
    Array.from({ length: SESSIONS }, (_, i) => connectHttpClient(urls[i % urls.length])),
  );
  const callers = clients.map((client, i) =>
    callerOf(urls[i % urls.length], client.client.transport.sessionId),
  );
  // Every replica's call path compiled and warm before anything is timed, whichever served the latency part.
  await Promise.all(
    callers.map(async (call) => {
      for (let i = 0; i < WARMUP_CALLS_PER_SESSION; i++) await call();
    }),
  );
  return { clients, callers };
}

/**
 * Seconds for every caller to make `calls` calls back to back, and the CPU (ms) that took: of
 * `replicas` (each with its echo server), of this process (the clients) and of the whole machine.
 */
async function timeCalls(callers, calls, replicas) {
  const before = cpuNow(replicas);
  const started = performance.now();
  await Promise.all(
    callers.map(async (call) => {
      for (let i = 0; i < calls; i++) await call();
    }),
  );
  return { seconds: (performance.now() - started) / 1000, cpu: cpuSince(before, replicas) };
}

function cpuNow(processes) {
  const own = process.cpuUsage();
  return {
    processes: processes.map((started) => treeCpuMsOf(started.pid)),
    client: (own.user + own.system) / 1000,
    machine: machineBusyMs(),
  };
}

/** CPU used since `before` (cpuNow): each of `processes`, this process, the machine. */
function cpuSince(before, processes) {
  const now = cpuNow(processes);
  return {
    processes: now.processes.map((used, index) => used - before.processes[index]),
    client: now.client - before.client,
    machine: now.machine - before.machine,
  };
}

/**
 * Calls per second of each setup (its name, and the processes its sessions are spread over),
 * measured in alternating rounds (the order rotating) so that the machine's changing load falls
 * on each alike; with the CPU each took per call.
 */
async function throughputs(setups, log) {
  const sessions = [];
  try {
    for (const { processes } of setups)
      sessions.push(await openSessions(processes.map((started) => started.url)));
    const seconds = setups.map(() => 0);
    const cpu = setups.map(() => ({ processes: 0, client: 0, machine: 0 }));
    const perRound = CALLS_PER_SESSION / THROUGHPUT_ROUNDS;
    for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
      log(`bench fleet: throughput round ${round + 1} of ${THROUGHPUT_ROUNDS}`);
      for (let k = 0; k < setups.length; k++) {
        const index = (round + k) % setups.length;
        const timed = await timeCalls(sessions[index].callers, perRound, setups[index].processes);
        seconds[index] += timed.seconds;
        cpu[index].processes += timed.cpu.processes.reduce((sum, used) => sum + used, 0);
        cpu[index].client += timed.cpu.client;
        cpu[index].machine += timed.cpu.machine;
      }
    }
    const calls = SESSIONS * CALLS_PER_SESSION;
    return setups.map(({ name }, index) => ({
      name,
      callsPerSecond: calls / seconds[index],
      // CPU per call (ms): of the toolmesh processes with their echo servers, of the bench's
      // clients, and of the machine as a whole (everything else running meanwhile included).
      cpuPerCall: {
        processes: cpu[index].processes / calls,
        client: cpu[index].client / calls,
        machine: cpu[index].machine / calls,
      },
      // Of the machine's two cores over the timed calls, how much went to anything at all.
      busyCores: cpu[index].machine / 1000 / seconds[index],
    }));
  } finally {
    for (const { callers } of sessions) for (const call of callers) call.close();
    await Promise.allSettled(sessions.flatMap(({ clients }) => clients.map((client) => client.close())));
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
  call.close();
  await owner.close().catch(() => undefined);
  await doomed.stop();
  return servedAfter;
}

/**
 * CPU per call (ms) of each process a call goes through, for each way of sending it: blocks of
 * CPU_BLOCK calls of each kind in turn, one call at a time, so each block's CPU is that kind's.
 */
async function hopCpu(calls, processes) {
  const kinds = Object.keys(calls);
  const started = Object.values(processes);
  const used = Object.fromEntries(kinds.map((kind) => [kind, started.map(() => 0)]));
  for (let done = 0; done < CPU_CALLS; done += CPU_BLOCK)
    for (const kind of kinds) {
      const before = cpuNow(started);
      for (let i = 0; i < CPU_BLOCK; i++) await calls[kind]();
      cpuSince(before, started).processes.forEach((ms, index) => {
        used[kind][index] += ms;
      });
    }
  const names = Object.keys(processes);
  return Object.fromEntries(
    kinds.map((kind) => [
      kind,
      Object.fromEntries(names.map((name, index) => [name, used[kind][index] / CPU_CALLS])),
    ]),
  );
}

/** The replicas' config in `folder`: echo over stdio, auth off, the machine's Redis under a prefix of its own. */
export function writeFleetConfig(folder, prefix) {
  const config = path.join(folder, 'fleet.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { echo: ECHO_STDIO },
      auth: { required: false },
      state: { redis: REDIS_URL, redisPrefix: `${prefix}-${randomBytes(4).toString('hex')}:` },
    }),
  );
  return config;
}

/** Runs the fleet benchmarks in `base`; returns the figures for renderFleetSection. */
export async function benchmarkFleet({ base, log }) {
  const folder = path.join(base, 'fleet');
  mkdirSync(folder, { recursive: true });
  const config = writeFleetConfig(folder, 'toolmesh-bench');
  const replicas = [];
  const solos = [];
  const hops = [];
  try {
    for (let i = 0; i < 3; i++) replicas.push(await startReplica(config, folder, i));
    const urls = replicas.map((replica) => replica.url);
    log('bench fleet: a call on the owner vs the same call forwarded by another replica');
    const hopTo = (...flags) =>
      startProcess({
        command: process.execPath,
        args: [HOP_PROXY, new URL(urls[0]).origin, ...flags],
        ready: /hop proxy listening on (http:\/\/\S+)/,
      });
    const hop = await hopTo();
    hops.push(hop);
    const tcpPipe = await hopTo('--tcp');
    hops.push(tcpPipe);
    const owner = await connectHttpClient(urls[0]);
    const sessionId = owner.client.transport.sessionId;
    const calls = {
      local: callerOf(urls[0], sessionId),
      forwarded: callerOf(urls[1], sessionId),
      hop: callerOf(`${hop.url}/mcp`, sessionId),
    };
    const throughPipe = callerOf(`${tcpPipe.url}/mcp`, sessionId);
    const latency = await interleaved(
      { ...calls, tcpPipe: throughPipe },
      { runs: LATENCY_CALLS, warmup: LATENCY_WARMUP },
    );
    log('bench fleet: the CPU of a call on the owner, forwarded, and through the bare hop');
    const cpu = await hopCpu(calls, { owner: replicas[0], forwarder: replicas[1], hop });
    for (const call of [...Object.values(calls), throughPipe]) call.close();
    await owner.close();
    for (const started of hops.splice(0)) await started.stop();
    // Two toolmesh processes that are no fleet (no Redis, each on its own SQLite): what splitting
    // the same load over two processes costs on this machine whatever they share.
    const soloConfig = path.join(folder, 'solo.json');
    writeFileSync(
      soloConfig,
      JSON.stringify({ mcpServers: { echo: ECHO_STDIO }, auth: { required: false } }),
    );
    for (let i = 0; i < 2; i++) solos.push(await startReplica(soloConfig, folder, `solo-${i}`));
    const perReplicas = await throughputs(
      [
        { name: '1 replica', processes: replicas.slice(0, 1) },
        { name: '2 replicas', processes: replicas.slice(0, 2) },
        { name: '3 replicas', processes: replicas.slice(0, 3) },
        { name: '2 separate processes, no fleet', processes: solos },
      ],
      log,
    );
    for (const solo of solos.splice(0)) await solo.stop();
    log(`bench fleet: a session's owner killed (SIGKILL), ${TAKEOVERS} times`);
    const takeovers = [];
    for (let i = 0; i < TAKEOVERS; i++) takeovers.push(await takeover(config, folder, urls[0]));
    return {
      local: latency.local.stats,
      forwarded: latency.forwarded.stats,
      hop: latency.hop.stats,
      tcpPipe: latency.tcpPipe.stats,
      cpu,
      perReplicas,
      takeovers,
      load: os.loadavg()[0],
    };
  } finally {
    for (const started of [...replicas, ...solos, ...hops]) await started.stop();
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

function cpuMs(value) {
  return `${value.toFixed(2)} ms`;
}

export function renderFleetSection(run) {
  const one = run.perReplicas[0].callsPerSecond;
  const rows = run.perReplicas
    .map(
      ({ name, callsPerSecond, cpuPerCall, busyCores }) =>
        `| ${name} | ${Math.round(callsPerSecond)} | ${(callsPerSecond / one).toFixed(2)}× | **${cpuMs(cpuPerCall.processes)}** | ${cpuMs(cpuPerCall.client)} | ${cpuMs(cpuPerCall.machine)} | ${busyCores.toFixed(2)} |`,
    )
    .join('\n');
  const { cpu } = run;
  const hopAdds = run.hop.median - run.local.median;
  return `## fleet: replicas on one Redis

Three \`toolmesh serve --transport http\` replicas on one config and the machine's Redis (a key
prefix per run), echo over stdio behind each, each with a data directory of its own, as each pod of a
fleet has (the audit stays in each replica's SQLite file: no \`state.postgres\` here). A legacy session's
\`tools/call\` sent to the replica that owns it; the same call sent to another replica, which forwards
it; and, as the floors of a hop between two Node processes, the same call through a bare Node HTTP proxy
(test/bench/hop-proxy.mjs: kept-alive connections, bytes piped both ways, no router, no parsing, no
lookup) and through a TCP pipe (the same script with \`--tcp\`: a connection's bytes passed on, no HTTP
read at all), each in front of the owner (${LATENCY_CALLS} of each, interleaved, one at a time, after
${LATENCY_WARMUP.toLocaleString('en-US')} unmeasured of each; every call a plain kept-alive HTTP request, as a balancer's connection
carries it):

| call | p50 | p95 |
|---|---|---|
| on the owner | **${ms(run.local.median)}** | ${ms(run.local.p95)} |
| forwarded by another replica | **${ms(run.forwarded.median)}** | ${ms(run.forwarded.p95)} |
| through the bare Node proxy | ${ms(run.hop.median)} | ${ms(run.hop.p95)} |
| through the TCP pipe | ${ms(run.tcpPipe.median)} | ${ms(run.tcpPipe.p95)} |

A forward adds **${micros(run.forwarded.median - run.local.median)}** at p50 (target ≤ +0.5 ms); the bare proxy adds
${micros(hopAdds)}, the TCP pipe ${micros(run.tcpPipe.median - run.local.median)}. CPU per call, from /proc (${CPU_CALLS} calls of each kind in blocks of ${CPU_BLOCK}, one at a
time; a replica's figure includes its echo server):

| call | owner | forwarding replica | bare proxy |
|---|---|---|---|
| on the owner | ${cpuMs(cpu.local.owner)} | ${cpuMs(cpu.local.forwarder)} | ${cpuMs(cpu.local.hop)} |
| forwarded | ${cpuMs(cpu.forwarded.owner)} | **${cpuMs(cpu.forwarded.forwarder)}** | ${cpuMs(cpu.forwarded.hop)} |
| through the bare proxy | ${cpuMs(cpu.hop.owner)} | ${cpuMs(cpu.hop.forwarder)} | **${cpuMs(cpu.hop.hop)}** |

The forwarding replica reads where a session lives once a second at most (docs/deployment.md), so a
forward's cost is the hop: one more process woken twice (the request, then the answer) and one more
loopback HTTP exchange. Its wall-clock cost is that CPU plus the wait for a core to run it on, which on
a busy 2-core machine is most of it.

Throughput: ${SESSIONS} sessions, ${CALLS_PER_SESSION} calls each back to back, the sessions spread over the
replicas as a sticky balancer places them (each session opened by the SDK's client on its replica,
its calls then sent there as plain kept-alive HTTP requests from the bench's own process); and, as the peer for two replicas, the same over two toolmesh processes that
are no fleet (no Redis, each its own SQLite): what splitting one load over two processes costs on this
machine, whatever they share. Every session first makes ${WARMUP_CALLS_PER_SESSION} unmeasured calls, so each
process serves 1,800 or more before any is timed, whatever it did before; the calls are timed in ${THROUGHPUT_ROUNDS} rounds that alternate between
the setups (the order rotating), so that the machine's changing load falls on each alike. CPU per call
from /proc over the timed calls: the toolmesh processes with their echo servers, the bench's clients,
and the whole machine (whatever else ran meanwhile included); busy cores is the machine's CPU over the
wall time of those calls (2 at most):

| sessions on | calls/s | vs one | CPU/call, toolmesh | clients | machine | busy cores |
|---|---|---|---|---|---|---|
${rows}

Each call of a legacy session costs its replica two Redis commands, batched per event-loop turn (the
HSET that marks it in flight, so another replica can audit it as cut off should this one die, and the
HDEL that clears it); the audit goes to the replica's own SQLite file.

${takeoverSection(run)}Replicas that share one data directory share its SQLite file, and without \`state.postgres\` every call's
audit record queues for that file's write lock across processes (SQLite's busy wait sleeps a millisecond
and more): measured in one run at a load of 26, two replicas so gave 0.60× one, against 0.99× with a data
directory each. Give each replica its own (docs/deployment.md), or put the audit in PostgreSQL.

On 2 cores the replicas, their echo servers, the clients and Redis share the same two cores (target:
2 replicas ≥ 0.9× one, no collapse). One replica is bounded by its one JavaScript thread, and leaves
part of the second core idle; two fill both, but each handles fewer calls per wake-up and so spends
more CPU per call, fleet or not (compare 2 replicas with the 2 separate processes). A load generator
must stay light here: with the SDK's client sending the calls (0.6–1 ms of CPU a call, more than a
replica spends), the clients took the second core and 2 replicas gave 0.72–0.76× one. What the
fleet itself adds per call is the two Redis commands above. Scaling beyond that has to be measured on
a machine with more cores than replicas.

Load average (1 min) at the end of the run: ${run.load.toFixed(1)} on ${os.cpus().length} cores. On a machine this
busy every wall-clock figure above is mostly waiting for a core; check the targets on an idle one.

Reproduce: \`pnpm build && node test/bench/run.mjs --only fleet\` (needs Redis at REDIS_URL).
`;
}
