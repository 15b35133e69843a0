// The fs server's benchmarks: the built toolmesh-fs spawned over real stdio and driven by the
// real MCP SDK client, on a generated tree, against grep where grep does the same job.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { check } from './check.mjs';
import { grepCount } from './grep.mjs';
import { memoryOf, startFs } from './server.mjs';
import { interleaved, measure, ms } from './stats.mjs';
import { generateLargeFile, generateTree } from './tree.mjs';

const MAX_TOKENS = 64000;
const LARGE_FILE_BYTES = 1024 * 1024;
const RUNS = { coldStart: 10, search: 7, pagedSearch: 3, read: 10, list: 5 };
/** Lines planted per marker: literal and regex fit one 64000-byte answer; paged needs the cursor. */
const MARKER_COUNTS = { literal: 300, regex: 350, paged: 5000 };

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
    filesScanned += out.filesScanned;
    cursor = out.truncated ? out.nextCursor : undefined;
    check(!out.truncated || cursor, 'a truncated search_text answer carries nextCursor');
  } while (cursor);
  // Each page resumes in the file where the one before it stopped, so that file is read twice.
  return { matches, calls, filesScanned: filesScanned - (calls - 1) };
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

/** Runs every fs benchmark in `base`; the fs clients it opens are kept in `open` until closed. */
export async function benchmarkFs({ base, open, log }) {
  const workspace = path.join(base, 'ws');
  const treeDir = path.join(workspace, 'tree');
  const dataDir = path.join(base, 'data');
  mkdirSync(treeDir, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
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
      { runs },
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

  return {
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
  };
}
