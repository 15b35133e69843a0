// `pnpm bench`: benchmarks of the built toolmesh-fs, spawned over real stdio and driven by the real
// MCP SDK client, written to docs/benchmarks.md. See that page for what is measured and how.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { grepCount, grepVersion } from './grep.mjs';
import { renderReport } from './report.mjs';
import { memoryOf, startFs } from './server.mjs';
import { measure, ms, summarize } from './stats.mjs';
import { generateLargeFile, generateTree } from './tree.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUTPUT = path.join(REPO, 'docs', 'benchmarks.md');
const MAX_TOKENS = 64000;
const LARGE_FILE_BYTES = 1024 * 1024;
const RUNS = { coldStart: 10, search: 7, pagedSearch: 3, read: 10, list: 5 };
/** Lines planted per marker: literal and regex fit one 64000-byte answer; paged needs the cursor. */
const MARKER_COUNTS = { literal: 300, regex: 350, paged: 5000 };

const log = (line) => process.stderr.write(`${line}\n`);

function check(condition, message) {
  if (!condition) throw new Error(`bench check failed: ${message}`);
}

/** Runs the named functions `runs` times each, interleaved (order rotating per round), after one warm-up each. */
async function interleaved(fns, runs) {
  const names = Object.keys(fns);
  const times = Object.fromEntries(names.map((name) => [name, []]));
  const results = {};
  for (const name of names) results[name] = await fns[name]();
  for (let round = 0; round < runs; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length];
      const start = performance.now();
      results[name] = await fns[name]();
      times[name].push(performance.now() - start);
    }
  }
  return Object.fromEntries(
    names.map((name) => [name, { stats: summarize(times[name]), result: results[name] }]),
  );
}

/** search_text over the whole tree, following nextCursor until the search is exhausted. */
async function searchAll(fs, args) {
  let cursor;
  let matches = 0;
  let calls = 0;
  let filesScanned = 0;
  do {
    const out = await fs.tool('search_text', {
      ...args,
      maxTokens: MAX_TOKENS,
      timeoutMs: 120_000,
      ...(cursor && { cursor }),
    });
    calls++;
    matches += out.matches.length;
    filesScanned = Math.max(filesScanned, out.filesScanned);
    cursor = out.truncated ? out.nextCursor : undefined;
    check(!out.truncated || cursor, 'a truncated search_text answer carries nextCursor');
  } while (cursor);
  return { matches, calls, filesScanned };
}

/** read_file of the whole file, following nextCursor; returns the content put back together. */
async function readAll(fs, file) {
  let cursor;
  let calls = 0;
  const parts = [];
  do {
    const out = await fs.tool('read_file', { path: file, maxTokens: MAX_TOKENS, ...(cursor && { cursor }) });
    calls++;
    parts.push(out.content);
    cursor = out.truncated ? out.nextCursor : undefined;
  } while (cursor);
  return { content: parts.join(''), calls };
}

/** One recursive list_dir request, followed through nextCursor. */
async function listAll(fs, folder) {
  let cursor;
  let calls = 0;
  let entries = 0;
  let limitReached = false;
  do {
    const out = await fs.tool('list_dir', {
      path: folder,
      recursive: true,
      maxDepth: 20,
      limit: 5000,
      maxTokens: MAX_TOKENS,
      ...(cursor && { cursor }),
    });
    calls++;
    entries += out.entries.length;
    limitReached = out.limitReached;
    cursor = out.truncated ? out.nextCursor : undefined;
  } while (cursor);
  return { entries, calls, limitReached };
}

async function machineFacts() {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    node: process.version,
    platform: `${os.type()} ${os.release()} (${process.arch})`,
    cpu: `${cpus[0]?.model.trim() ?? 'unknown'}`,
    cores: os.availableParallelism?.() ?? cpus.length,
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    load: os.loadavg()[0].toFixed(2),
    grep: await grepVersion(),
    locale: process.env.LC_ALL || process.env.LANG || 'unset',
  };
}

async function main() {
  const began = performance.now();
  const base = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-bench-'));
  const workspace = path.join(base, 'ws');
  const treeDir = path.join(workspace, 'tree');
  const dataDir = path.join(base, 'data');
  mkdirSync(treeDir, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  const open = new Set();
  const cleanup = async () => {
    for (const client of open) await client.close().catch(() => {});
    open.clear();
    rmSync(base, { recursive: true, force: true });
  };
  const onSignal = () => {
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const facts = await machineFacts();
    log(`bench: generating the tree in ${base}`);
    const start = performance.now();
    const tree = generateTree(treeDir, { markerCounts: MARKER_COUNTS });
    const largeFile = path.join(workspace, 'large.txt');
    const largeLines = generateLargeFile(largeFile, LARGE_FILE_BYTES);
    const generateMs = performance.now() - start;
    log(
      `bench: ${tree.files} files, ${tree.directories} folders, ${(tree.bytes / 1024 ** 2).toFixed(1)} MiB in ${ms(generateMs)}`,
    );

    // 1. Cold start: spawn → initialize → tools/list, a fresh process each time.
    log('bench: cold start');
    let toolCount = 0;
    const coldStart = await measure(
      async () => {
        const fs = await startFs({ roots: [workspace], dataDir });
        open.add(fs);
        toolCount = (await fs.client.listTools()).tools.length;
        await fs.close();
        open.delete(fs);
      },
      { runs: RUNS.coldStart },
    );

    const fs = await startFs({ roots: [workspace], dataDir });
    open.add(fs);
    await fs.client.listTools();
    const memoryAtStart = memoryOf(fs.pid);

    // 2. search_text against grep, over the same tree, interleaved.
    const searches = [];
    for (const [name, runs] of [
      ['literal', RUNS.search],
      ['regex', RUNS.search],
      ['paged', RUNS.pagedSearch],
    ]) {
      const marker = tree.markers[name];
      log(`bench: search_text ${name} ${marker.pattern}`);
      const grepFlags = marker.regex ? '-rnE' : '-rnF';
      const measured = await interleaved(
        {
          toolmesh: () => searchAll(fs, { pattern: marker.pattern, regex: marker.regex, path: 'tree' }),
          grep: () => grepCount(grepFlags, marker.pattern, treeDir),
        },
        runs,
      );
      const found = measured.toolmesh.result;
      check(
        found.matches === marker.lines,
        `search_text ${name} found ${found.matches}, planted ${marker.lines}`,
      );
      check(
        measured.grep.result === marker.lines,
        `grep ${name} found ${measured.grep.result}, planted ${marker.lines}`,
      );
      check(
        found.filesScanned === tree.files,
        `search_text ${name} scanned ${found.filesScanned} of ${tree.files} files`,
      );
      check(
        name === 'paged' ? found.calls > 1 : found.calls === 1,
        `search_text ${name} took ${found.calls} calls`,
      );
      searches.push({
        name,
        marker,
        grepFlags,
        calls: found.calls,
        toolmesh: measured.toolmesh.stats,
        grep: measured.grep.stats,
      });
    }
    const memoryAfterSearch = memoryOf(fs.pid);

    // 3. read_file of a 1 MiB text file: every page, and one page.
    log('bench: read_file');
    const expected = readFileSync(largeFile, 'utf8');
    const readWhole = await measure(() => readAll(fs, 'large.txt'), { runs: RUNS.read });
    check(readWhole.result.content === expected, 'read_file pages put back together equal the file');
    const readPage = await measure(() => fs.tool('read_file', { path: 'large.txt', maxTokens: MAX_TOKENS }), {
      runs: RUNS.read,
    });
    const pageBytes = Buffer.byteLength(readPage.result.content);
    check(pageBytes <= MAX_TOKENS && readPage.result.truncated, 'one read_file page is cut at the budget');

    // 4. Recursive list_dir: one call, the whole 5000-entry limit paged, and the whole tree.
    log('bench: list_dir');
    const listOne = await measure(
      () =>
        fs.tool('list_dir', {
          path: 'tree',
          recursive: true,
          maxDepth: 20,
          limit: 5000,
          maxTokens: MAX_TOKENS,
        }),
      { runs: RUNS.list },
    );
    const listLimit = await measure(() => listAll(fs, 'tree'), { runs: RUNS.list });
    check(
      listLimit.result.entries === 5000 && listLimit.result.limitReached,
      'the paged listing stops at limit 5000',
    );
    const listTree = await measure(
      async () => {
        const top = await fs.tool('list_dir', { path: 'tree', maxTokens: MAX_TOKENS, limit: 5000 });
        let entries = top.entries.length;
        let calls = 1;
        for (const entry of top.entries.filter((e) => e.type === 'directory')) {
          const sub = await listAll(fs, entry.path);
          check(!sub.limitReached, `${entry.path} fits in one 5000-entry listing`);
          entries += sub.entries;
          calls += sub.calls;
        }
        return { entries, calls };
      },
      { runs: RUNS.list },
    );
    check(
      listTree.result.entries === tree.entries,
      `list_dir saw ${listTree.result.entries} of ${tree.entries} entries`,
    );

    await fs.close();
    open.delete(fs);

    const report = renderReport({
      facts,
      tree,
      generateMs,
      maxTokens: MAX_TOKENS,
      coldStart: { ...coldStart.stats, toolCount },
      memory: { atStart: memoryAtStart, afterSearch: memoryAfterSearch },
      searches,
      read: {
        bytes: LARGE_FILE_BYTES,
        lines: largeLines,
        whole: { ...readWhole.stats, calls: readWhole.result.calls },
        page: { ...readPage.stats, bytes: pageBytes, lines: readPage.result.endLine },
      },
      list: {
        one: { ...listOne.stats, entries: listOne.result.entries.length },
        limit: { ...listLimit.stats, calls: listLimit.result.calls, entries: listLimit.result.entries },
        tree: { ...listTree.stats, calls: listTree.result.calls, entries: listTree.result.entries },
      },
      totalMs: performance.now() - began,
    });
    writeFileSync(OUTPUT, report);
    log(`bench: wrote ${path.relative(REPO, OUTPUT)} in ${ms(performance.now() - began)}`);
    process.stdout.write(report);
  } finally {
    await cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exitCode = 1;
});
