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
/**
 * The commit whose tree issue 26 timed (703 files, 70 s, 2.33 GB peak): the repository has grown
 * since, so the target is checked on that tree as well as on today's.
 */
const ISSUE_26_COMMIT = '6273e07';
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

/** The files of the checkout at `root` as git sees them (tracked, and untracked unless ignored). */
function repositoryFiles(root) {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 ** 2,
  })
    .split('\0')
    .filter(Boolean);
}

/**
 * code-graph on the checkout at `root` (its database elsewhere; it writes nothing in the root),
 * as the README runs it: watcher on, precise mode on. Timed from spawn to index_status reporting
 * the precise upgrade done; then left idle past the checker worker's idle time.
 */
async function codeGraphOnRepository(dataDir, root) {
  const db = path.join(dataDir, `${path.basename(root)}.sqlite`);
  const started = performance.now();
  const server = await startCodeGraph({ root, db, mode: MODES.precise, watch: 'events' });
  const stopSampling = samplePeak(server.pid);
  try {
    const status = (await server.ready({ pollMs: 50, timeoutMs: 1_800_000 })).roots[0];
    const wallMs = performance.now() - started;
    const cpuSeconds = cpuSecondsOf(server.pid);
    const peakKiB = stopSampling();
    const rssAtReadyKiB = memoryOf(server.pid).rssKiB;
    await sleep(IDLE_WAIT_MS);
    const idle = memoryOf(server.pid);
    return {
      wallMs,
      cpuSeconds,
      peakKiB,
      hwmKiB: idle.hwmKiB,
      rssAtReadyKiB,
      idleRssKiB: idle.rssKiB,
      idleAnonKiB: idle.anonKiB,
      files: status.files,
      precise: status.precise?.state,
    };
  } finally {
    stopSampling();
    await server.close();
  }
}

/**
 * code-graph started again on the index codeGraphOnRepository left: its memory once idle is the
 * least a server that had its first index built by another process could hold.
 */
async function codeGraphReopened(dataDir, root) {
  const db = path.join(dataDir, `${path.basename(root)}.sqlite`);
  const server = await startCodeGraph({ root, db, mode: MODES.precise, watch: 'events' });
  try {
    await server.ready({ pollMs: 50, timeoutMs: 600_000 });
    await sleep(IDLE_WAIT_MS);
    const idle = memoryOf(server.pid);
    return { idleRssKiB: idle.rssKiB, idleAnonKiB: idle.anonKiB };
  } finally {
    await server.close();
  }
}

/**
 * `codegraph index` on a copy of the files of the checkout at `root`, under /usr/bin/time for its
 * CPU (children included).
 */
async function codegraphOnCopy(base, home, root) {
  const copy = path.join(base, 'codegraph', path.basename(root));
  for (const file of repositoryFiles(root)) {
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    cpSync(path.join(root, file), path.join(copy, file), { verbatimSymlinks: true });
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

/**
 * A checkout of `commit` in `folder`, installed and built as a developer's is (the checker reads
 * the workspace packages' declarations from their builds), as a git worktree of this repository.
 */
function checkoutOf(commit, folder) {
  try {
    execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: REPO, stdio: 'ignore' });
  } catch {
    throw new Error(
      `bench: this clone lacks commit ${commit}; fetch the whole history (git fetch --unshallow)`,
    );
  }
  // An earlier run stopped midway (Ctrl-C) leaves its worktree registered with its folder gone.
  execFileSync('git', ['worktree', 'prune'], { cwd: REPO, stdio: 'ignore' });
  const tree = path.join(folder, `toolmesh-${commit}`);
  execFileSync('git', ['worktree', 'add', '--detach', tree, commit], { cwd: REPO, stdio: 'ignore' });
  for (const args of [['install', '--frozen-lockfile', '--prefer-offline'], ['build']])
    execFileSync('pnpm', args, { cwd: tree, stdio: 'ignore' });
  return tree;
}

/** Drops the worktree checkoutOf made at `tree`, its folder with it. */
function removeCheckout(tree) {
  execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: REPO, stdio: 'ignore' });
}

/** code-graph, then codegraph, on the checkout at `root`. */
async function codeGraphAndPeerOn(root, folder, home, log) {
  log(`bench: code-graph precise index of ${root}, then idle`);
  const codeGraph = await codeGraphOnRepository(path.join(folder, 'data'), root);
  log('bench: code-graph started again on that index, then idle');
  const reopened = await codeGraphReopened(path.join(folder, 'data'), root);
  log('bench: codegraph index of the same files');
  const codegraph = await codegraphOnCopy(folder, home, root);
  return { codeGraph, reopened, codegraph };
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
  let tree;
  try {
    // Checked out first, so a clone without the commit fails before the long part.
    log(`bench: a checkout of ${ISSUE_26_COMMIT}, installed and built`);
    tree = checkoutOf(ISSUE_26_COMMIT, folder);
    const today = await codeGraphAndPeerOn(REPO, folder, home, log);
    const issueTree = await codeGraphAndPeerOn(tree, folder, home, log);
    return {
      startedAt,
      endLoad: os.loadavg()[0].toFixed(2),
      cores: os.availableParallelism(),
      today,
      issueTree,
    };
  } finally {
    if (tree) removeCheckout(tree);
    rmSync(folder, { recursive: true, force: true });
  }
}

const mib = (kib) => `${(kib / 1024).toFixed(0)} MiB`;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** The two rows of one tree: code-graph's and codegraph's. */
function rowsOf(tree, { codeGraph, codegraph }) {
  return [
    [
      tree,
      `**code-graph** (precise), ${codeGraph.files} files`,
      `**${seconds(codeGraph.wallMs)}**`,
      `${codeGraph.cpuSeconds.toFixed(1)} s`,
      mib(codeGraph.peakKiB),
      mib(codeGraph.rssAtReadyKiB),
      `**${mib(codeGraph.idleRssKiB)}** (own ${mib(codeGraph.idleAnonKiB)})`,
    ],
    [
      tree,
      `${CODEGRAPH.name} ${CODEGRAPH.version}`,
      seconds(codegraph.wallMs),
      `${codegraph.cpuSeconds.toFixed(1)} s`,
      mib(codegraph.peakKiB),
      '—',
      '—',
    ],
  ];
}

const met = (yes) => (yes ? 'met' : '**not met**');
const wallRatioToPeer = ({ codeGraph, codegraph }) => `${(codeGraph.wallMs / codegraph.wallMs).toFixed(1)}×`;

export function renderCodeGraphSelfSection({ startedAt, endLoad, cores, today, issueTree }) {
  const peak = Math.max(today.codeGraph.peakKiB, issueTree.codeGraph.peakKiB);
  return `## code-graph on this repository

code-graph's first index of this repository with the precise (TypeScript checker) upgrade, and ${CODEGRAPH.name}
${CODEGRAPH.version} on the same files, one run each, on two trees: the repository as it is, and a checkout of
${ISSUE_26_COMMIT}, the tree issue 26 timed at 70 s (703 files then; the repository has grown since), installed and
built as a developer's checkout is (the checker reads the workspace packages' declarations from their builds).
Started ${startedAt.date}, ${cores} cores, 1-minute load average ${startedAt.load} at the start and ${endLoad} at the
end: wall times on a loaded machine stretch, CPU time and peak memory much less. Reproduce after \`pnpm build\`:
\`node test/bench/run.mjs --only code-graph-self\` (it checks out ${ISSUE_26_COMMIT} as a git worktree, runs \`pnpm
install\` and \`pnpm build\` there, and removes it).

**code-graph**: the built server with its defaults (watcher on, precise mode on), \`--root <tree> --db
<new file> --watch events\`, spawned over stdio with the real SDK client, until \`index_status\` reports the precise
upgrade done (precise state: \`${[...new Set([today.codeGraph.precise, issueTree.codeGraph.precise])].join('` and `')}\`). CPU is the user + system time of
the process and of its worker processes (the parse workers and the checker, ended or still running). Peak RSS sums
the process and its workers; *RSS when done* and *RSS idle* are the server process's own (VmRSS; *own* is its
RssAnon), idle ${IDLE_WAIT_MS / 1000} s after that, once the checker worker, which outlives the last check by 60 s to re-check saves quickly, has ended. **codegraph**: \`codegraph index\` on a copy of
the tree's files (\`git ls-files --cached --others --exclude-standard\`), after an unmeasured \`codegraph init\`,
under \`/usr/bin/time\` for its CPU. Peak memory is the highest sum of VmRSS over the process and its children,
sampled every 20 ms.

${table(
  ['Tree', 'Tool', 'Wall', 'CPU (user + sys)', 'Peak RSS', 'RSS when done', 'RSS idle'],
  [...rowsOf('today', today), ...rowsOf(ISSUE_26_COMMIT, issueTree)],
)}

- **Targets (issue 26):** the first precise index within 1 GB peak: ${met(peak <= 1024 ** 2)} (${mib(peak)} at most);
  faster than the 70 s issue 26 measured on ${ISSUE_26_COMMIT}: ${met(issueTree.codeGraph.wallMs < 70_000)} on that tree (${seconds(issueTree.codeGraph.wallMs)} wall, ${issueTree.codeGraph.cpuSeconds.toFixed(1)} s CPU),
  and ${today.codeGraph.wallMs < 70_000 ? 'under' : 'over'} 70 s on today's larger tree (${seconds(today.codeGraph.wallMs)});
  an idle server at most 60 MB: ${met(today.codeGraph.idleRssKiB <= 60 * 1024)} (${mib(today.codeGraph.idleRssKiB)} on today's tree).
- **Where the idle memory is.** *Own* is the process's RssAnon; the rest of its RSS is pages of files it maps, the
  node executable above all, which every Node process on the machine shares (a bare \`node\` maps about 31 MiB of it,
  and a process that has run optimized code more). Started again on the finished index, code-graph idles at
  ${mib(today.reopened.idleRssKiB)} (own ${mib(today.reopened.idleAnonKiB)}) on today's tree and ${mib(issueTree.reopened.idleRssKiB)} (own ${mib(issueTree.reopened.idleAnonKiB)}) on ${ISSUE_26_COMMIT}'s: the least a server whose first
  index another process built could hold, and still over 60 MB.
- **Beside ${CODEGRAPH.name}** (tree-sitter only, no type checker): code-graph's precise index takes ${wallRatioToPeer(today)} its wall
  time on today's tree and ${wallRatioToPeer(issueTree)} on ${ISSUE_26_COMMIT}'s.
`;
}
