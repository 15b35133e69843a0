// What one-shot use of the toolmesh CLI costs in wall time and in CPU (user + system, which a
// loaded machine inflates far less), with no config (every installed first-party server):
// `toolmesh serve` over stdio to its answer to `initialize`, and to its exit once stdin closes or
// SIGTERM comes; `toolmesh search` and `toolmesh call` from spawn to exit, with the catalogue
// cached by an earlier run (what a user has after any serve, doctor or call).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { check } from './check.mjs';
import { cpuMsOf } from './cpu-time.mjs';
import { runAloneWhenMain } from './run-alone.mjs';
import { ms, summarize } from './stats.mjs';
import { AGGREGATOR_BIN } from './toolmesh.mjs';

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
})}\n`;

/** How often a command's CPU is read while it runs: its last reading misses at most this much of it. */
const CPU_POLL_MS = 5;

/**
 * Spawns `toolmesh args…` in `cwd`; resolves when it exits, with its wall time, its own CPU (as
 * last read from /proc while it ran, so without the servers it started) and output.
 */
function runToolmesh(args, { cwd, dataDir }) {
  const start = performance.now();
  const child = spawn(process.execPath, [AGGREGATOR_BIN, ...args], {
    cwd,
    env: { ...process.env, TOOLMESH_DATA_DIR: dataDir, TOOLMESH_CACHE_DIR: path.join(dataDir, 'cache') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let cpuMs = 0;
  const poll = setInterval(() => {
    try {
      cpuMs = cpuMsOf(child.pid);
    } catch {
      // Gone: the last reading stands.
    }
  }, CPU_POLL_MS);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearInterval(poll);
      resolve({ ms: performance.now() - start, cpuMs, code, stdout, stderr });
    }),
  );
}

/**
 * `toolmesh serve` over stdio: `initialize` written at spawn, timed to its answer; then the end
 * (`stdin`: closing its stdin; `SIGTERM`) timed to the process's exit.
 */
async function serveOnce({ cwd, dataDir, end }) {
  const start = performance.now();
  const child = spawn(process.execPath, [AGGREGATOR_BIN, 'serve', '--log-level', 'error'], {
    cwd,
    env: { ...process.env, TOOLMESH_DATA_DIR: dataDir, TOOLMESH_CACHE_DIR: path.join(dataDir, 'cache') },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', () => resolve(performance.now())));
  child.stdin.write(INITIALIZE);
  let stdout = '';
  let initializeCpuMs;
  const initializeMs = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (initializeCpuMs !== undefined || !stdout.includes('"id":1')) return;
      initializeCpuMs = cpuMsOf(child.pid);
      resolve(performance.now() - start);
    });
    child.once('exit', () => reject(new Error(`toolmesh serve exited before answering: ${stdout}`)));
  });
  check(stdout.includes('"protocolVersion"'), `initialize was not answered: ${stdout}`);
  // Let the servers come up, as they would while a client works, so that the exit ends them.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const ending = performance.now();
  if (end === 'stdin') child.stdin.end();
  else child.kill('SIGTERM');
  return { initializeMs, initializeCpuMs, exitMs: (await exited) - ending };
}

export async function benchmarkCliTimings({ folder, dataDir, runs, log }) {
  const root = mkdtempSync(path.join(folder, 'cli-'));
  writeFileSync(path.join(root, 'hello.txt'), 'hello\n');
  log(`bench: toolmesh CLI timings with no config, ${runs} runs each`);
  const load = () => os.loadavg()[0].toFixed(1);
  const loadAtStart = load();
  try {
    // Unmeasured: fills the OS file cache and the catalogue cache.
    const first = await runToolmesh(['search', 'read a text file'], { cwd: root, dataDir });
    check(first.code === 0, `toolmesh search failed: ${first.stderr}`);
    const initialize = [];
    const initializeCpu = [];
    const exitOnStdin = [];
    const exitOnSigterm = [];
    const search = [];
    const searchCpu = [];
    const call = [];
    const callCpu = [];
    for (let run = 0; run < runs; run++) {
      const byStdin = await serveOnce({ cwd: root, dataDir, end: 'stdin' });
      const bySignal = await serveOnce({ cwd: root, dataDir, end: 'SIGTERM' });
      initialize.push(byStdin.initializeMs, bySignal.initializeMs);
      initializeCpu.push(byStdin.initializeCpuMs, bySignal.initializeCpuMs);
      exitOnStdin.push(byStdin.exitMs);
      exitOnSigterm.push(bySignal.exitMs);
      const searched = await runToolmesh(['search', 'read a text file'], { cwd: root, dataDir });
      check(/^fs__read/m.test(searched.stdout), `toolmesh search found no fs tool: ${searched.stdout}`);
      search.push(searched.ms);
      searchCpu.push(searched.cpuMs);
      const called = await runToolmesh(['call', 'fs__read_file', '{"path":"hello.txt"}'], {
        cwd: root,
        dataDir,
      });
      check(called.code === 0 && called.stdout.includes('hello'), `toolmesh call failed: ${called.stderr}`);
      call.push(called.ms);
      callCpu.push(called.cpuMs);
    }
    return {
      load: { start: loadAtStart, end: load(), cores: os.cpus().length },
      initialize: summarize(initialize),
      initializeCpu: summarize(initializeCpu),
      exitOnStdin: summarize(exitOnStdin),
      exitOnSigterm: summarize(exitOnSigterm),
      search: summarize(search),
      searchCpu: summarize(searchCpu),
      call: summarize(call),
      callCpu: summarize(callCpu),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The report's lines for these figures, each beside its target (issue 21), with the CPU the
 * command used where it is measured (the time a target would take on an idle machine is about
 * that CPU, the CPU of one core, plus the waits on its servers).
 */
export function cliTimingRows(cli) {
  const row = (what, figures, targetMs, cpu) => [
    what,
    `**${ms(figures.median)}** (p95 ${ms(figures.p95)})`,
    cpu ? `${ms(cpu.median)} (p95 ${ms(cpu.p95)})` : '—',
    `${ms(targetMs)}: ${figures.p95 <= targetMs ? 'met' : '**not met**'}`,
  ];
  return [
    row(
      '`toolmesh serve` over stdio: spawn to the answer to `initialize`',
      cli.initialize,
      300,
      cli.initializeCpu,
    ),
    row('`toolmesh serve` over stdio: stdin closed to exit', cli.exitOnStdin, 500),
    row('`toolmesh serve` over stdio: SIGTERM to exit', cli.exitOnSigterm, 500),
    row(
      '`toolmesh search "read a text file"`, spawn to exit, catalogue cached',
      cli.search,
      1000,
      cli.searchCpu,
    ),
    row('`toolmesh call fs__read_file …`, spawn to exit, catalogue cached', cli.call, 1500, cli.callCpu),
  ];
}

runAloneWhenMain(
  import.meta.url,
  'cli-timings',
  ({ base, log }) => {
    const dataDir = path.join(base, 'data');
    return benchmarkCliTimings({ folder: base, dataDir, runs: 5, log });
  },
  (cli) =>
    `${cliTimingRows(cli)
      .map((row) => row.join(' | '))
      .join('\n')}\n`,
);
