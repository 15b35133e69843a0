// The aggregator's CPU per proxied trivial call, this build against another (TOOLMESH_BASE_BIN,
// e.g. the base commit's built dist/index.js) side by side in one run: for each client path,
// both run at once and their rounds alternate, so a loaded machine's drift falls on both alike.
// Figures are user + system CPU from /proc per call, medians of the rounds (issue 26).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { connectHttpClient, connectModernHttpClient } from '@toolmesh/core/testing';
import { CALL_CPU_WARMUP, childrenOf, echoOf, MEASURED_PATHS } from './aggregator-call-cpu.mjs';
import { check } from './check.mjs';
import { cpuMsOf } from './cpu-time.mjs';
import { median } from './stats.mjs';
import { AGGREGATOR_BIN, startToolmeshHttp, startToolmeshStdio, writeConfig } from './toolmesh.mjs';

/** `bin` serving the path's echo server to a client of its transport and era, with its own data folder. */
async function open(bin, { name, echo }, folder) {
  mkdirSync(folder);
  const config = writeConfig(folder, 'echo', { echo });
  const [transport, era] = name.split('-');
  const modern = era === '2026';
  const closers = [];
  let client;
  let pid;
  if (transport === 'stdio') {
    client = await startToolmeshStdio({ config, cwd: folder, dataDir: folder, modern, bin });
    pid = client.pid;
  } else {
    const toolmesh = await startToolmeshHttp({ config, cwd: folder, dataDir: folder, bin });
    closers.push(() => toolmesh.stop());
    pid = toolmesh.pid;
    client = await (modern ? connectModernHttpClient : connectHttpClient)(toolmesh.url);
  }
  closers.unshift(() => client.close());
  const call = await echoOf(client);
  // A server listed from the catalogue cache is started by its first call.
  await call();
  const [upstream] = childrenOf(pid);
  check(upstream, `${bin} started no echo server`);
  return {
    call,
    pids: { aggregator: pid, server: upstream },
    close: async () => {
      for (const close of closers) await close().catch(() => undefined);
    },
  };
}

async function round(side, calls) {
  const before = { aggregator: cpuMsOf(side.pids.aggregator), server: cpuMsOf(side.pids.server) };
  const start = performance.now();
  for (let i = 0; i < calls; i++) await side.call();
  return {
    aggregatorCpuUs: ((cpuMsOf(side.pids.aggregator) - before.aggregator) * 1000) / calls,
    serverCpuUs: ((cpuMsOf(side.pids.server) - before.server) * 1000) / calls,
    wallUs: ((performance.now() - start) * 1000) / calls,
  };
}

const base = process.env.TOOLMESH_BASE_BIN;
check(base, 'set TOOLMESH_BASE_BIN to the dist/index.js of the build to compare with');
const calls = Number(process.env.CALL_CPU_CALLS ?? 1000);
const rounds = Number(process.env.CALL_CPU_ROUNDS ?? 7);
const only = process.env.CALL_CPU_PATHS?.split(',');
const folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-call-cpu-ab-'));
const us = (value) => `${Math.round(value)} µs`;
try {
  process.stdout.write(
    `${rounds} alternating rounds of ${calls} calls; base ${base}\n| Client to toolmesh | Aggregator CPU per call, base | Aggregator CPU per call, this build | This ÷ base | Echo server CPU per call (base / this) | Wall per call (base / this) |\n|---|---|---|---|---|---|\n`,
  );
  for (const measured of MEASURED_PATHS.filter(({ name }) => !only || only.includes(name))) {
    const { name } = measured;
    const sides = {
      base: await open(base, measured, path.join(folder, `${name}-base`)),
      this: await open(AGGREGATOR_BIN, measured, path.join(folder, `${name}-this`)),
    };
    try {
      for (let i = 0; i < CALL_CPU_WARMUP; i++) for (const side of Object.values(sides)) await side.call();
      const seen = { base: [], this: [] };
      for (let r = 0; r < rounds; r++)
        for (const which of r % 2 === 0 ? ['base', 'this'] : ['this', 'base'])
          seen[which].push(await round(sides[which], calls));
      const m = (which, key) => median(seen[which].map((figures) => figures[key]));
      process.stdout.write(
        `| ${name} | ${us(m('base', 'aggregatorCpuUs'))} | **${us(m('this', 'aggregatorCpuUs'))}** | ${(m('this', 'aggregatorCpuUs') / m('base', 'aggregatorCpuUs')).toFixed(2)} | ${us(m('base', 'serverCpuUs'))} / ${us(m('this', 'serverCpuUs'))} | ${us(m('base', 'wallUs'))} / ${us(m('this', 'wallUs'))} |\n`,
      );
    } finally {
      for (const side of Object.values(sides)) await side.close();
    }
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
