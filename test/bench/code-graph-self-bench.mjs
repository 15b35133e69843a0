// code-graph's first precise index of this repository, beside @colbymchenry/codegraph on the same
// files in the same run: wall and CPU time, peak memory, and code-graph's memory once it is idle.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { CODEGRAPH, codegraphEnv, codegraphIndexCommand } from './code-graph-peer.mjs';
import { MODES, startCodeGraph } from './code-graph-server.mjs';
import { table } from './markdown.mjs';
import { descendantsOf, treeMemoryOf } from './processes.mjs';
import { memoryOf } from './server.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** code-graph's checker worker outlives the last check by CHECKER_IDLE_MS (60 s); idle memory is read after. */
const IDLE_WAIT_MS = 65_000;
const CLOCK_TICKS = 100;

/**
 * User and system CPU seconds of a running process and of every worker process it started: those
 * that ended (its reaped children's times) and those still running (the idle checker worker).
 */
function cpuSecondsOf(pid) {
  const ticks = (process) => {
    const fields = readFileSync(`/proc/${process}/stat`, 'utf8').split(') ')[1].split(' ');
    return fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0);
  };
  let total = ticks(pid);
  for (const child of descendantsOf(pid)) {
    try {
      total += ticks(child);
    } catch {
      // Ended between the listing and the read: its time is now its parent's.
    }
  }
  return total / CLOCK_TICKS;
}

/** Samples the peak summed VmRSS of a process and its children until stopped. */
function samplePeak(pid) {
  let peakKiB = 0;
  const sample = () => {
    try {
      const tree = treeMemoryOf(pid);
      // A child exiting between the listing and the read reads NaN, and is skipped.
      const total = tree.rssKiB + tree.childrenRssKiB;
      if (total > peakKiB) peakKiB = total;
    } catch {
      // An exiting process has no memory lines left: the samples so far stand.
    }
  };
  sample();
  const timer = setInterval(sample, 20);
  return () => {
    clearInterval(timer);
    return peakKiB;
  };
}

/** The repository's files as git sees them (tracked, and untracked unless ignored). */
function repositoryFiles() {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: REPO,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 ** 2,
  })
    .split('\0')
    .filter(Boolean);
}

/**
 * code-graph on the repository itself (its database elsewhere; it writes nothing in the root),
 * as the README runs it: watcher on, precise mode on. Timed from spawn to index_status reporting
 * the precise upgrade done; then left idle past the checker worker's idle time.
 */
async function codeGraphOnRepository(dataDir) {
  const db = path.join(dataDir, 'self.sqlite');
  const started = performance.now();
  const server = await startCodeGraph({ root: REPO, db, mode: MODES.precise, watch: 'events' });
  const stopSampling = samplePeak(server.pid);
  try {
    const status = (await server.ready({ pollMs: 50, timeoutMs: 1_800_000 })).roots[0];
    const wallMs = performance.now() - started;
    const cpuSeconds = cpuSecondsOf(server.pid);
    const peakKiB = stopSampling();
    const rssAtReadyKiB = memoryOf(server.pid).rssKiB;
    await sleep(IDLE_WAIT_MS);
    return {
      wallMs,
      cpuSeconds,
      peakKiB,
      hwmKiB: memoryOf(server.pid).hwmKiB,
      rssAtReadyKiB,
      idleRssKiB: memoryOf(server.pid).rssKiB,
      files: status.files,
      precise: status.precise?.state,
    };
  } finally {
    stopSampling();
    await server.close();
  }
}

/** `codegraph index` on a copy of the same files, under /usr/bin/time for its CPU (children included). */
async function codegraphOnCopy(base, home) {
  const copy = path.join(base, 'codegraph', 'toolmesh');
  for (const file of repositoryFiles()) {
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    cpSync(path.join(REPO, file), path.join(copy, file), { verbatimSymlinks: true });
  }
  const env = { ...process.env, ...codegraphEnv(home) };
  execFileSync(CODEGRAPH.bin, ['init', '--yes', copy], { env, stdio: 'ignore' });
  const { command, args } = codegraphIndexCommand(copy);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', 'cpu %U %S', command, ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const stopSampling = samplePeak(child.pid);
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const peakKiB = stopSampling();
      const cpu = /cpu ([\d.]+) ([\d.]+)/.exec(stderr);
      if (code !== 0 || !cpu) reject(new Error(`codegraph index exited ${code}:\n${stderr}`));
      else
        resolve({
          wallMs: performance.now() - started,
          cpuSeconds: Number(cpu[1]) + Number(cpu[2]),
          peakKiB,
        });
    });
  });
}

export async function benchmarkCodeGraphSelf({ base, log }) {
  const folder = path.join(base, 'code-graph-self');
  const home = path.join(folder, 'codegraph-home');
  mkdirSync(path.join(folder, 'data'), { recursive: true });
  mkdirSync(home, { recursive: true });
  const startedAt = {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    load: os.loadavg()[0].toFixed(2),
  };
  log('bench: code-graph precise index of this repository, then idle');
  const codeGraph = await codeGraphOnRepository(path.join(folder, 'data'));
  log('bench: codegraph index of the same files');
  const codegraph = await codegraphOnCopy(folder, home);
  rmSync(folder, { recursive: true, force: true });
  return {
    startedAt,
    endLoad: os.loadavg()[0].toFixed(2),
    cores: os.availableParallelism(),
    codeGraph,
    codegraph,
  };
}

const mib = (kib) => `${(kib / 1024).toFixed(0)} MiB`;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

export function renderCodeGraphSelfSection({ startedAt, endLoad, cores, codeGraph, codegraph }) {
  return `## code-graph on this repository

code-graph's first index of this repository with the precise (TypeScript checker) upgrade, and ${CODEGRAPH.name}
${CODEGRAPH.version} on the same files, one run each (started ${startedAt.date}, ${cores} cores, 1-minute load
average ${startedAt.load} at the start and ${endLoad} at the end: wall times on a loaded machine stretch, CPU time
and peak memory much less). Reproduce after \`pnpm build\`: \`node test/bench/run.mjs --only code-graph-self\`.

**code-graph**: the built server with its defaults (watcher on, precise mode on), \`--root <repository> --db
<new file> --watch events\`, spawned over stdio with the real SDK client, until \`index_status\` reports the precise
upgrade done (${codeGraph.files} files indexed; precise state \`${codeGraph.precise}\`). CPU is the user + system time of
the process and of its worker processes (the parse workers and the checker, ended or still running). Peak RSS sums
the process and its workers; *RSS when done* and *RSS idle* are the server process's own, idle ${IDLE_WAIT_MS / 1000} s after
that, once the checker worker, which outlives the last check by 60 s to re-check saves quickly, has ended. **codegraph**: \`codegraph index\` on a copy of
the repository's files (\`git ls-files --cached --others --exclude-standard\`), after an unmeasured \`codegraph init\`,
under \`/usr/bin/time\` for its CPU. Peak memory is the highest sum of VmRSS over the process and its children,
sampled every 20 ms.

${table(
  ['Tool', 'Wall', 'CPU (user + sys)', 'Peak RSS', 'RSS when done', 'RSS idle'],
  [
    [
      '**code-graph** (precise)',
      `**${seconds(codeGraph.wallMs)}**`,
      `${codeGraph.cpuSeconds.toFixed(1)} s`,
      mib(codeGraph.peakKiB),
      mib(codeGraph.rssAtReadyKiB),
      `**${mib(codeGraph.idleRssKiB)}**`,
    ],
    [
      `**${CODEGRAPH.name} ${CODEGRAPH.version}**`,
      `**${seconds(codegraph.wallMs)}**`,
      `${codegraph.cpuSeconds.toFixed(1)} s`,
      mib(codegraph.peakKiB),
      '—',
      '—',
    ],
  ],
)}

- **Targets (issue 26):** the first precise index within 1 GB peak: ${codeGraph.peakKiB <= 1024 ** 2 ? 'met' : '**not met**'} (${mib(codeGraph.peakKiB)});
  faster than the 70 s measured before: ${codeGraph.wallMs < 70_000 ? 'met' : '**not met** on this machine'} (${seconds(codeGraph.wallMs)} wall, ${codeGraph.cpuSeconds.toFixed(1)} s CPU);
  an idle server at most 60 MB: ${codeGraph.idleRssKiB <= 60 * 1024 ? 'met' : '**not met**'} (${mib(codeGraph.idleRssKiB)}).
`;
}
