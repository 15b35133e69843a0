// code-graph's benchmarks, in one run with @colbymchenry/codegraph on the same files: a full
// index of zod's sources (wall time, files/s, lines/s, peak memory), the latency from a file
// save to the updated answer with each tool's watcher, and query latency over stdio.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { check } from './check.mjs';
import { copyZod } from './code-graph-corpus.mjs';
import { CODEGRAPH, codegraphEnv, codegraphIndexCommand, startCodegraphServer } from './code-graph-peer.mjs';
import { hasPreciseMode, MODES, startCodeGraph } from './code-graph-server.mjs';
import { treeMemoryOf } from './processes.mjs';
import { memoryOf } from './server.mjs';
import { summarize } from './stats.mjs';

const RUNS = { index: 5, saves: 20, peerSaves: 12, queries: 300, warmup: 20 };
/** The edited file, and the function its probe calls: an edit a person makes, and the question after it. */
const EDIT = { file: 'src/v4/locales/en.ts', target: 'joinValues', targetFile: 'src/v4/core/util.ts' };
const SEARCHES = [
  'safe parse',
  'string schema',
  'json schema',
  'error map',
  'discriminated union',
  'toJSONSchema',
  'registry',
  'locale error message',
  'refine',
  'template literal',
];
/** Well-used symbols of zod, named as code_callers and code_impact take them. */
const SYMBOLS = [
  { symbol: 'joinValues', file: 'src/v4/core/util.ts' },
  { symbol: 'normalizeParams', file: 'src/v4/core/util.ts' },
  { symbol: 'Doc.write', file: 'src/v4/core/doc.ts' },
  { symbol: 'ZodType.parse', file: 'src/v3/types.ts' },
  { symbol: 'addIssueToContext', file: 'src/v3/helpers/parseUtil.ts' },
  { symbol: 'ParseStatus.dirty', file: 'src/v3/helpers/parseUtil.ts' },
  { symbol: 'string', file: 'src/v4/classic/schemas.ts' },
  { symbol: 'compile', file: 'src/v4/core/compile.ts' },
];

/**
 * Samples a process tree's memory until stopped: the peak of the summed VmRSS of the process and
 * its children (codegraph re-launches itself in a child), and the main process's own VmHWM.
 */
function sampleMemory(pid, everyMs = 20) {
  let peakTreeKiB = 0;
  let hwmKiB = 0;
  const sample = () => {
    try {
      // An exiting process's status has no memory lines: such a sample reads NaN and is skipped.
      const tree = treeMemoryOf(pid);
      const total = tree.rssKiB + tree.childrenRssKiB;
      if (total > peakTreeKiB) peakTreeKiB = total;
      const { hwmKiB: hwm } = memoryOf(pid);
      if (hwm > hwmKiB) hwmKiB = hwm;
    } catch {
      // The process has just exited: the samples so far stand.
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return () => {
    clearInterval(timer);
    return { peakTreeKiB, hwmKiB };
  };
}

/** Runs a command to its end; its wall time from spawn to exit and its peak memory. */
function runMeasured({ command, args, env, cwd }) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const stop = sampleMemory(child.pid);
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const memory = stop();
      if (code !== 0) reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${stderr}`));
      else resolve({ ms: performance.now() - started, ...memory });
    });
  });
}

/** code-graph from spawn to index_status reporting its index (and any precise upgrade) done. */
async function codeGraphFullIndex({ root, dataDir, mode, run }) {
  const db = path.join(dataDir, `full-${mode.id}-${run}.sqlite`);
  const started = performance.now();
  const server = await startCodeGraph({ root, db, mode });
  const stop = sampleMemory(server.pid);
  try {
    const status = (await server.ready({ pollMs: 10 })).roots[0];
    const ms = performance.now() - started;
    return {
      ms,
      ...stop(),
      indexMs: status.lastRun?.milliseconds,
      preciseMs: status.precise?.lastRun?.milliseconds,
      edges: Object.values(status.edgesByKind).reduce((sum, n) => sum + n, 0),
      calls: status.calls,
      unresolvedCalls: status.unresolvedCalls,
      precise: status.precise?.state,
    };
  } finally {
    stop();
    await server.close();
    rmSync(db, { force: true });
    rmSync(`${db}-wal`, { force: true });
    rmSync(`${db}-shm`, { force: true });
  }
}

/** Full re-index of the same files by each tool, interleaved run by run so noise falls on all alike. */
async function benchmarkFullIndex({ corpus, peerCorpus, dataDir, home, modes, log }) {
  const variants = {
    ...Object.fromEntries(
      modes.map((mode) => [mode.id, (run) => codeGraphFullIndex({ root: corpus.root, dataDir, mode, run })]),
    ),
    codegraph: () => runMeasured({ ...codegraphIndexCommand(peerCorpus.root), env: codegraphEnv(home) }),
  };
  log(`bench: code-graph full index (${Object.keys(variants).join(', ')}), ${RUNS.index} runs each`);
  // codegraph needs its project folder initialised once; that first index is the warm-up.
  await runMeasured({
    command: CODEGRAPH.bin,
    args: ['init', '--yes', peerCorpus.root],
    env: codegraphEnv(home),
  });
  const names = Object.keys(variants);
  const results = Object.fromEntries(names.map((name) => [name, []]));
  for (const name of names.filter((name) => name !== 'codegraph')) await variants[name](-1);
  for (let round = 0; round < RUNS.index; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length];
      results[name].push(await variants[name](round));
    }
  }
  return Object.fromEntries(
    names.map((name) => {
      const runs = results[name];
      const last = runs.at(-1);
      return [
        name,
        {
          ...summarize(runs.map((r) => r.ms)),
          peakTreeKiB: Math.max(...runs.map((r) => r.peakTreeKiB)),
          hwmKiB: Math.max(...runs.map((r) => r.hwmKiB)),
          indexMs: last.indexMs === undefined ? undefined : summarize(runs.map((r) => r.indexMs)).median,
          preciseMs:
            last.preciseMs === undefined ? undefined : summarize(runs.map((r) => r.preciseMs)).median,
          edges: last.edges,
          calls: last.calls,
          unresolvedCalls: last.unresolvedCalls,
          precise: last.precise,
        },
      ];
    }),
  );
}

/**
 * One save: the edited file gets a probe function that calls the target, `run` lines further down
 * each time, and the clock runs from the write until `answered(probeName)` sees the new caller.
 */
async function saveLatencies({ root, runs, warmup, answered, settle }) {
  const file = path.join(root, EDIT.file);
  const original = readFileSync(file, 'utf8');
  const times = [];
  try {
    for (let run = 0; run < warmup + runs; run++) {
      const probe = `benchProbe${run}`;
      const started = performance.now();
      writeFileSync(
        file,
        `${original}${'\n'.repeat(run + 1)}export function ${probe}() {\n  return util.${EDIT.target}(["a"]);\n}\n`,
      );
      const deadline = started + 15_000;
      while (!(await answered(probe))) {
        check(performance.now() < deadline, `no answer showed ${probe} calling ${EDIT.target} within 15 s`);
      }
      if (run >= warmup) times.push(performance.now() - started);
      await settle();
    }
  } finally {
    writeFileSync(file, original);
  }
  return summarize(times);
}

/** code-graph's save latency in one mode, with its watcher on. */
async function codeGraphSaves({ corpus, dataDir, mode, log }) {
  log(`bench: code-graph save → updated code_callers, ${RUNS.saves} saves (${mode.title} mode, watcher on)`);
  const server = await startCodeGraph({
    root: corpus.root,
    db: path.join(dataDir, `watch-${mode.id}.sqlite`),
    mode,
    watch: 'events',
  });
  try {
    await server.ready();
    const saves = await saveLatencies({
      root: corpus.root,
      runs: RUNS.saves,
      warmup: 2,
      answered: async (probe) => {
        const answer = await server.tool('code_callers', {
          symbol: EDIT.target,
          file: EDIT.targetFile,
          maxTokens: 64000,
        });
        return answer.callers.some((group) => group.caller.qualifiedName === probe);
      },
      settle: () => server.ready(),
    });
    return { mode: mode.title, ...saves };
  } finally {
    await server.close();
  }
}

async function benchmarkIncremental({ corpus, peerCorpus, dataDir, home, modes, log }) {
  const codeGraph = [];
  for (const mode of modes) codeGraph.push(await codeGraphSaves({ corpus, dataDir, mode, log }));
  log(`bench: codegraph save → updated codegraph_callers, ${RUNS.peerSaves} saves (its watcher)`);
  const peer = await startCodegraphServer({ root: peerCorpus.root, home });
  let codegraph;
  try {
    codegraph = await saveLatencies({
      root: peerCorpus.root,
      runs: RUNS.peerSaves,
      warmup: 1,
      answered: async (probe) =>
        (
          await peer.text('codegraph_callers', { symbol: EDIT.target, file: EDIT.targetFile, limit: 1000 })
        ).includes(probe),
      settle: () => sleep(1000),
    });
  } finally {
    await peer.close();
  }
  return { edit: EDIT, codeGraph, codegraph };
}

/** Calls `call(i)` `runs` times after `warmup` unmeasured calls; each call's wall time. */
async function latency(call, { runs, warmup }) {
  for (let i = 0; i < warmup; i++) await call(i);
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await call(i);
    times.push(performance.now() - started);
  }
  return summarize(times);
}

async function benchmarkQueries({ corpus, peerCorpus, dataDir, home, mode, log }) {
  const options = { runs: RUNS.queries, warmup: RUNS.warmup };
  log(`bench: code-graph queries over stdio, ${RUNS.queries} calls each (${mode.title} mode)`);
  const server = await startCodeGraph({ root: corpus.root, db: path.join(dataDir, 'queries.sqlite'), mode });
  const codeGraph = {};
  try {
    await server.ready();
    const memory = memoryOf(server.pid);
    for (const query of SEARCHES) {
      const found = await server.tool('search_code', { query });
      check(found.results.length > 0, `search_code "${query}" found nothing`);
    }
    codeGraph.search = await latency(
      (i) => server.tool('search_code', { query: SEARCHES[i % SEARCHES.length] }),
      options,
    );
    codeGraph.callers = await latency(
      (i) => server.tool('code_callers', SYMBOLS[i % SYMBOLS.length]),
      options,
    );
    const tools = (await server.client.listTools()).tools.map((tool) => tool.name);
    if (tools.includes('code_impact')) {
      codeGraph.impact = await latency(
        (i) => server.tool('code_impact', { ...SYMBOLS[i % SYMBOLS.length], depth: 3 }),
        options,
      );
    }
    codeGraph.memory = memory;
  } finally {
    await server.close();
  }
  log(`bench: codegraph queries over stdio, ${RUNS.queries} calls each`);
  const peer = await startCodegraphServer({ root: peerCorpus.root, home });
  const codegraph = {};
  try {
    codegraph.search = await latency(
      (i) => peer.text('codegraph_search', { query: SEARCHES[i % SEARCHES.length] }),
      options,
    );
    codegraph.callers = await latency(
      (i) => peer.text('codegraph_callers', SYMBOLS[i % SYMBOLS.length]),
      options,
    );
    codegraph.impact = await latency(
      (i) => peer.text('codegraph_impact', { ...SYMBOLS[i % SYMBOLS.length], depth: 3 }),
      options,
    );
  } finally {
    await peer.close();
  }
  return { searches: SEARCHES, symbols: SYMBOLS, codeGraph, codegraph };
}

export async function benchmarkCodeGraph({ base, log }) {
  const began = performance.now();
  const startedAt = {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    load: os.loadavg()[0].toFixed(2),
  };
  const dataDir = path.join(base, 'data');
  const home = path.join(base, 'codegraph-home');
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(home, { recursive: true });
  // Two identical copies, so that neither tool's files (codegraph's .codegraph/) are in the other's tree.
  const corpus = copyZod(path.join(base, 'code-graph', 'zod'));
  const peerCorpus = copyZod(path.join(base, 'codegraph', 'zod'));
  const precise = hasPreciseMode();
  const modes = [MODES.syntactic, ...(precise ? [MODES.precise] : [])];
  const defaultMode = precise ? MODES.precise : MODES.syntactic;
  const context = { corpus, peerCorpus, dataDir, home, log };
  const fullIndex = await benchmarkFullIndex({ ...context, modes });
  const incremental = await benchmarkIncremental({ ...context, modes });
  const queries = await benchmarkQueries({ ...context, mode: defaultMode });
  return {
    corpus: { name: corpus.name, version: corpus.version, files: corpus.files.length, lines: corpus.lines },
    peer: { name: CODEGRAPH.name, version: CODEGRAPH.version },
    precise,
    startedAt,
    runs: RUNS,
    fullIndex,
    incremental,
    queries,
    totalMs: performance.now() - began,
  };
}
