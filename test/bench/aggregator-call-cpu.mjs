// What one proxied trivial call costs in CPU (user + system, read from /proc), which a loaded
// machine does not inflate the way it inflates wall time: back-to-back `echo` calls straight to
// the echo server, and through `toolmesh serve` to the same server over stdio; for the proxied
// calls, the aggregator's own CPU and its downstream echo server's, per call (issue 26). The
// client reaches toolmesh over stdio and over Streamable HTTP, in a 2025 session and in
// 2026-07-28 (see MEASURED_PATHS for what each path is compared with).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  connectHttpClient,
  connectModernHttpClient,
  spawnModernStdioClient,
  spawnStdioClient,
} from '@toolmesh/core/testing';
import { ECHO_STDIO, startEchoHttp } from './aggregator-overhead.mjs';
import { check } from './check.mjs';
import { cpuMsOf } from './cpu-time.mjs';
import { runAloneWhenMain } from './run-alone.mjs';
import { median } from './stats.mjs';
import { startToolmeshHttp, startToolmeshStdio, writeConfig } from './toolmesh.mjs';

const STDIO_RELAY = fileURLToPath(new URL('./stdio-relay.mjs', import.meta.url));
const ECHO_V2_SERVER = fileURLToPath(new URL('./echo-server-v2.mjs', import.meta.url));

/** The child processes of `pid` (the aggregator's upstream servers). */
export function childrenOf(pid) {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text === '' ? [] : text.split(' ').map(Number);
}

/** A connected client's `echo` call, whatever name the proxy gave the tool. */
export async function echoOf(connected) {
  const { tools } = await connected.listTools();
  const name = tools.find((tool) => tool.name === 'echo' || tool.name.endsWith('__echo'))?.name;
  check(name, `no echo tool among ${tools.map((tool) => tool.name).join(', ')}`);
  return async () => {
    const result = await connected.call(name, { text: 'ping' });
    check(result.content?.[0]?.text === 'ping', `${name} answered ${JSON.stringify(result)}`);
  };
}

/**
 * One round of `calls` back-to-back calls: wall per call, and the CPU per call of each of `pids`
 * and of the client (this process), which the wall time includes.
 */
async function round(call, pids, calls) {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMsOf(pid)]));
  const client = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < calls; i++) await call();
  const figures = { wallUs: ((performance.now() - start) * 1000) / calls };
  const clientUsed = process.cpuUsage(client);
  figures.client = (clientUsed.user + clientUsed.system) / calls;
  for (const [name, pid] of Object.entries(pids))
    figures[name] = ((cpuMsOf(pid) - before[name]) * 1000) / calls;
  return figures;
}

/**
 * Each way's calls (by name: its call and the pids whose CPU counts) in alternating rounds, so
 * the machine's noise falls on all alike; the median of each figure over the rounds.
 */
async function measureWays(ways, { calls, rounds, warmup }) {
  const entries = Object.entries(ways);
  for (let i = 0; i < warmup; i++) for (const [, way] of entries) await way.call();
  const seen = Object.fromEntries(entries.map(([name]) => [name, []]));
  for (let r = 0; r < rounds; r++)
    for (const [name, way] of entries) seen[name].push(await round(way.call, way.pids, calls));
  const medians = (list) =>
    Object.fromEntries(Object.keys(list[0]).map((key) => [key, median(list.map((f) => f[key]))]));
  return Object.fromEntries(entries.map(([name]) => [name, medians(seen[name])]));
}

/**
 * Calls each way makes unmeasured before the rounds: what a long-running server's calls cost once
 * V8 has compiled the path they take (a few hundred calls leave it partly interpreted), as the
 * instruction counts of call-instructions.mjs are taken.
 */
export const CALL_CPU_WARMUP = 3000;

/** The echo tool on the SDK's v2 server over stdio, which serves both eras. */
const ECHO_V2_STDIO = { command: process.execPath, args: [ECHO_V2_SERVER] };

/**
 * The paths measured: how the client reaches toolmesh, in which era, the direct call it is
 * compared with, and the echo server behind toolmesh. A path's era runs end to end where the
 * echo server can speak it: over stdio a 2026-07-28 client calls the v2 echo server, directly
 * and through toolmesh (which then speaks 2026-07-28 to it); over HTTP the echo server is the
 * v1 SDK's, so the direct call is a 2025 one there. The bare relay is timed on the 2025 stdio path.
 */
export const MEASURED_PATHS = [
  { name: 'stdio-2025', transport: 'stdio', era: '2025', direct: 'stdio', echo: ECHO_STDIO, relay: true },
  { name: 'stdio-2026', transport: 'stdio', era: '2026-07-28', direct: 'stdio-v2', echo: ECHO_V2_STDIO },
  { name: 'http-2025', transport: 'Streamable HTTP', era: '2025', direct: 'http', echo: ECHO_STDIO },
  { name: 'http-2026', transport: 'Streamable HTTP', era: '2026-07-28', direct: 'http', echo: ECHO_STDIO },
];

/** A client and the pids whose CPU counts for each direct call (and the relay), made on first use. */
function directCalls(closers) {
  /** A client spawned by `spawn` on `command args`, its process's CPU counted as `pidName`'s. */
  const overStdio =
    (spawn, { command, args }, pidName) =>
    async () => {
      const client = await spawn(command, args);
      closers.push(() => client.close());
      return { call: await echoOf(client), pids: { [pidName]: client.pid } };
    };
  const connectors = {
    stdio: overStdio(spawnStdioClient, ECHO_STDIO, 'server'),
    'stdio-v2': overStdio(spawnModernStdioClient, ECHO_V2_STDIO, 'server'),
    http: async () => {
      const echoHttp = await startEchoHttp();
      closers.push(() => echoHttp.stop());
      const client = await connectHttpClient(echoHttp.url);
      closers.push(() => client.close());
      return { call: await echoOf(client), pids: { server: echoHttp.pid } };
    },
    // The floor of any proxy over stdio: a relay in front of the v1 echo server, a 2025 client.
    relay: overStdio(
      spawnStdioClient,
      { command: process.execPath, args: [STDIO_RELAY, ECHO_STDIO.command, ...ECHO_STDIO.args] },
      'relay',
    ),
  };
  const made = new Map();
  return (kind) => {
    if (!made.has(kind)) made.set(kind, connectors[kind]());
    return made.get(kind);
  };
}

export async function benchmarkCallCpu({ folder, dataDir, calls, rounds, warmup, log, only }) {
  const paths = MEASURED_PATHS.filter((p) => !only || only.includes(p.name));
  log(`bench: CPU per echo call, ${rounds} rounds of ${calls} calls, direct and through toolmesh`);
  const closers = [];
  try {
    const direct = directCalls(closers);
    const figures = [];
    for (const path of paths) {
      log(`bench: ${path.name}`);
      const config = writeConfig(folder, `echo-cpu-${path.name}`, { echo: path.echo });
      const own = [];
      try {
        let toolmeshPid;
        let client;
        if (path.transport === 'stdio') {
          const modern = path.era !== '2025';
          client = await startToolmeshStdio({ config, cwd: folder, dataDir, modern });
          toolmeshPid = client.pid;
        } else {
          const toolmesh = await startToolmeshHttp({ config, cwd: folder, dataDir });
          own.push(() => toolmesh.stop());
          toolmeshPid = toolmesh.pid;
          client = await (path.era === '2025' ? connectHttpClient : connectModernHttpClient)(toolmesh.url);
        }
        own.push(() => client.close());
        const call = await echoOf(client);
        // A server listed from the catalogue cache is started by its first call.
        await call();
        const [upstream] = childrenOf(toolmeshPid);
        check(upstream, 'toolmesh started no echo server');
        const measured = await measureWays(
          {
            direct: await direct(path.direct),
            proxied: { call, pids: { aggregator: toolmeshPid, server: upstream } },
            ...(path.relay && { relay: await direct('relay') }),
          },
          { calls, rounds, warmup },
        );
        figures.push({
          name: path.name,
          transport: path.transport,
          era: path.era,
          direct: {
            wallUs: measured.direct.wallUs,
            serverCpuUs: measured.direct.server,
            clientCpuUs: measured.direct.client,
          },
          toolmesh: {
            wallUs: measured.proxied.wallUs,
            aggregatorCpuUs: measured.proxied.aggregator,
            serverCpuUs: measured.proxied.server,
            clientCpuUs: measured.proxied.client,
          },
          ...(measured.relay && {
            relay: { wallUs: measured.relay.wallUs, relayCpuUs: measured.relay.relay },
          }),
        });
      } finally {
        for (const close of own.toReversed()) await close().catch(() => undefined);
      }
    }
    return { calls, rounds, warmup, paths: figures };
  } finally {
    for (const close of closers.toReversed()) await close().catch(() => undefined);
  }
}

const us = (value) => `${Math.round(value)} µs`;

/** The report's rows for these figures, one a path, each beside its targets (issue 26). */
export function callCpuRows(figures) {
  return figures.paths.map((p) => {
    const ratio = p.toolmesh.wallUs / p.direct.wallUs;
    const cpuMet = p.toolmesh.aggregatorCpuUs <= p.toolmesh.serverCpuUs;
    return [
      `${p.transport}, ${p.era}`,
      us(p.direct.wallUs),
      `**${us(p.toolmesh.wallUs)}** (${ratio.toFixed(2)}×, ${ratio <= 2.3 ? 'met' : '**not met**'})`,
      `**${us(p.toolmesh.aggregatorCpuUs)}** (${cpuMet ? 'met' : '**not met**'})`,
      us(p.toolmesh.serverCpuUs),
      us(p.direct.serverCpuUs),
      `${us(p.direct.clientCpuUs)} / ${us(p.toolmesh.clientCpuUs)}`,
      p.relay
        ? `${us(p.relay.wallUs)} (${(p.relay.wallUs / p.direct.wallUs).toFixed(2)}×), ${us(p.relay.relayCpuUs)}`
        : '—',
    ];
  });
}

export const CALL_CPU_COLUMNS = [
  'Client to toolmesh',
  'Direct: wall per call',
  'Through toolmesh: wall per call (≤ 2.3× direct)',
  'Aggregator CPU per call (≤ the echo server’s)',
  'Echo server CPU per call, through toolmesh',
  'Echo server CPU per call, direct',
  'Client CPU per call, direct / through toolmesh',
  'Bare stdio relay: wall per call (× direct), its CPU per call',
];

runAloneWhenMain(
  import.meta.url,
  'call-cpu',
  ({ base, log }) =>
    benchmarkCallCpu({
      folder: base,
      dataDir: base,
      calls: Number(process.env.CALL_CPU_CALLS ?? 1000),
      rounds: Number(process.env.CALL_CPU_ROUNDS ?? 5),
      warmup: CALL_CPU_WARMUP,
      log,
      only: process.env.CALL_CPU_PATHS?.split(','),
    }),
  (figures) => `${[CALL_CPU_COLUMNS, ...callCpuRows(figures)].map((row) => row.join(' | ')).join('\n')}\n`,
);
