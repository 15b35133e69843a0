// What one proxied trivial call costs in CPU (user + system, read from /proc), which a loaded
// machine does not inflate the way it inflates wall time: back-to-back `echo` calls over stdio
// straight to the echo server, and through `toolmesh serve` to the same server; for the proxied
// calls, the aggregator's own CPU and its downstream echo server's, per call (issue 26).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { spawnStdioClient } from '@toolmesh/core/testing';
import { ECHO_STDIO } from './aggregator-overhead.mjs';
import { check } from './check.mjs';
import { cpuMsOf } from './cpu-time.mjs';
import { runAloneWhenMain } from './run-alone.mjs';
import { median } from './stats.mjs';
import { startToolmeshStdio, writeConfig } from './toolmesh.mjs';

/** The child processes of `pid` (the aggregator's upstream servers). */
function childrenOf(pid) {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text === '' ? [] : text.split(' ').map(Number);
}

/**
 * `calls` back-to-back echo calls by `callEcho`, in `rounds` rounds; per round, the wall time
 * per call and the CPU per call of each process in `pids`. Medians over the rounds.
 */
async function measureCalls(callEcho, pids, { calls, rounds, warmup }) {
  const call = async () => {
    const result = await callEcho({ text: 'ping' });
    check(result.content?.[0]?.text === 'ping', `echo answered ${JSON.stringify(result)}`);
  };
  for (let i = 0; i < warmup; i++) await call();
  const perRound = { wallUs: [], ...Object.fromEntries(Object.keys(pids).map((name) => [name, []])) };
  for (let round = 0; round < rounds; round++) {
    const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMsOf(pid)]));
    const start = performance.now();
    for (let i = 0; i < calls; i++) await call();
    perRound.wallUs.push(((performance.now() - start) * 1000) / calls);
    for (const [name, pid] of Object.entries(pids))
      perRound[name].push(((cpuMsOf(pid) - before[name]) * 1000) / calls);
  }
  return Object.fromEntries(Object.entries(perRound).map(([name, values]) => [name, median(values)]));
}

export async function benchmarkCallCpu({ folder, dataDir, calls, rounds, warmup, log }) {
  log(`bench: CPU per echo call over stdio, ${rounds} rounds of ${calls} calls, direct and through toolmesh`);
  const direct = await spawnStdioClient(ECHO_STDIO.command, ECHO_STDIO.args);
  const config = writeConfig(folder, 'echo-cpu', { echo: ECHO_STDIO });
  const toolmesh = await startToolmeshStdio({ config, cwd: folder, dataDir });
  try {
    const { tools } = await toolmesh.client.listTools();
    const echoName = tools.find((tool) => tool.name.endsWith('__echo'))?.name;
    check(echoName, `toolmesh lists no echo tool: ${tools.map((tool) => tool.name).join(', ')}`);
    const [upstream] = childrenOf(toolmesh.pid);
    check(upstream, 'toolmesh started no echo server');
    const directFigures = await measureCalls(
      (args) => direct.call('echo', args),
      { server: direct.pid },
      { calls, rounds, warmup },
    );
    const proxied = await measureCalls(
      (args) => toolmesh.call(echoName, args),
      { aggregator: toolmesh.pid, server: upstream },
      { calls, rounds, warmup },
    );
    return {
      calls,
      rounds,
      direct: { wallUs: directFigures.wallUs, serverCpuUs: directFigures.server },
      toolmesh: {
        wallUs: proxied.wallUs,
        aggregatorCpuUs: proxied.aggregator,
        serverCpuUs: proxied.server,
      },
    };
  } finally {
    await toolmesh.close();
    await direct.close();
  }
}

/** The report's lines for these figures, each beside its target (issue 26). */
export function callCpuRows(figures) {
  const us = (value) => `${Math.round(value)} µs`;
  const ratio = figures.toolmesh.wallUs / figures.direct.wallUs;
  const cpuMet = figures.toolmesh.aggregatorCpuUs <= figures.toolmesh.serverCpuUs;
  return [
    ['direct to the echo server: wall per call', us(figures.direct.wallUs), ''],
    ['direct: the echo server’s CPU per call', us(figures.direct.serverCpuUs), ''],
    [
      'through toolmesh: wall per call',
      `**${us(figures.toolmesh.wallUs)}** (${ratio.toFixed(2)}× direct)`,
      `≤ 2.3× direct: ${ratio <= 2.3 ? 'met' : '**not met**'}`,
    ],
    [
      'through toolmesh: the aggregator’s CPU per call',
      `**${us(figures.toolmesh.aggregatorCpuUs)}**`,
      `≤ the echo server’s: ${cpuMet ? 'met' : '**not met**'}`,
    ],
    ['through toolmesh: the echo server’s CPU per call', us(figures.toolmesh.serverCpuUs), ''],
  ];
}

runAloneWhenMain(
  import.meta.url,
  'call-cpu',
  ({ base, log }) =>
    benchmarkCallCpu({ folder: base, dataDir: base, calls: 1000, rounds: 5, warmup: 200, log }),
  (figures) =>
    `${callCpuRows(figures)
      .map((row) => row.join(' | '))
      .join('\n')}\n`,
);
