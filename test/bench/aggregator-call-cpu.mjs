// What one proxied trivial call costs in CPU (user + system, read from /proc), which a loaded
// machine does not inflate the way it inflates wall time: back-to-back `echo` calls straight to
// the echo server, and through `toolmesh serve` to the same server over stdio; for the proxied
// calls, the aggregator's own CPU and its downstream echo server's, per call (issue 26). The
// client reaches toolmesh over stdio and over Streamable HTTP, in a 2025 session and in
// 2026-07-28; the echo server speaks 2025 only, so each path's direct call is the 2025 one over
// the same transport.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { connectHttpClient, connectModernHttpClient, spawnStdioClient } from '@toolmesh/core/testing';
import { ECHO_STDIO, startEchoHttp } from './aggregator-overhead.mjs';
import { check } from './check.mjs';
import { cpuMsOf } from './cpu-time.mjs';
import { runAloneWhenMain } from './run-alone.mjs';
import { median } from './stats.mjs';
import { startToolmeshHttp, startToolmeshStdio, writeConfig } from './toolmesh.mjs';

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

/** One round of `calls` back-to-back calls: wall per call, and the CPU per call of each of `pids`. */
async function round(call, pids, calls) {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMsOf(pid)]));
  const start = performance.now();
  for (let i = 0; i < calls; i++) await call();
  const figures = { wallUs: ((performance.now() - start) * 1000) / calls };
  for (const [name, pid] of Object.entries(pids))
    figures[name] = ((cpuMsOf(pid) - before[name]) * 1000) / calls;
  return figures;
}

/**
 * The direct and the proxied call in alternating rounds, so the machine's noise falls on both;
 * the median of each figure over the rounds.
 */
async function measurePair(direct, proxied, { calls, rounds, warmup }) {
  for (let i = 0; i < warmup; i++) {
    await direct.call();
    await proxied.call();
  }
  const seen = { direct: [], proxied: [] };
  for (let r = 0; r < rounds; r++) {
    seen.direct.push(await round(direct.call, direct.pids, calls));
    seen.proxied.push(await round(proxied.call, proxied.pids, calls));
  }
  const medians = (list) =>
    Object.fromEntries(Object.keys(list[0]).map((key) => [key, median(list.map((f) => f[key]))]));
  return { direct: medians(seen.direct), proxied: medians(seen.proxied) };
}

/**
 * Calls each way makes unmeasured before the rounds: what a long-running server's calls cost once
 * V8 has compiled the path they take (a few hundred calls leave it partly interpreted), as the
 * instruction counts of call-instructions.mjs are taken.
 */
export const CALL_CPU_WARMUP = 3000;

/** The client transports and eras measured, each with how its client reaches toolmesh. */
const PATHS = [
  { name: 'stdio-2025', transport: 'stdio', era: '2025' },
  { name: 'stdio-2026', transport: 'stdio', era: '2026-07-28' },
  { name: 'http-2025', transport: 'Streamable HTTP', era: '2025' },
  { name: 'http-2026', transport: 'Streamable HTTP', era: '2026-07-28' },
];

export async function benchmarkCallCpu({ folder, dataDir, calls, rounds, warmup, log, only }) {
  const paths = PATHS.filter((p) => !only || only.includes(p.name));
  log(`bench: CPU per echo call, ${rounds} rounds of ${calls} calls, direct and through toolmesh`);
  const config = writeConfig(folder, 'echo-cpu', { echo: ECHO_STDIO });
  const closers = [];
  try {
    const directStdio = await spawnStdioClient(ECHO_STDIO.command, ECHO_STDIO.args);
    closers.push(() => directStdio.close());
    const echoHttp = await startEchoHttp();
    closers.push(() => echoHttp.stop());
    const directHttp = await connectHttpClient(echoHttp.url);
    closers.push(() => directHttp.close());
    const directs = {
      stdio: { call: await echoOf(directStdio), pids: { server: directStdio.pid } },
      'Streamable HTTP': { call: await echoOf(directHttp), pids: { server: echoHttp.pid } },
    };
    const figures = [];
    for (const path of paths) {
      log(`bench: ${path.name}`);
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
        const measured = await measurePair(
          directs[path.transport],
          { call, pids: { aggregator: toolmeshPid, server: upstream } },
          { calls, rounds, warmup },
        );
        figures.push({
          ...path,
          direct: { wallUs: measured.direct.wallUs, serverCpuUs: measured.direct.server },
          toolmesh: {
            wallUs: measured.proxied.wallUs,
            aggregatorCpuUs: measured.proxied.aggregator,
            serverCpuUs: measured.proxied.server,
          },
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
