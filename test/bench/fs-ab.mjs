// The fs server's search_text and search_files (a walk of every folder), this build against another (FS_BASE_BIN, e.g.
// a base commit's built servers/fs/dist/index.js), both serving the bench's generated tree at once,
// their calls alternating so that a loaded machine's drift falls on both alike. Run after `pnpm build`:
//   FS_BASE_BIN=<base checkout>/servers/fs/dist/index.js node test/bench/fs-ab.mjs
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnStdioClient } from '@toolmesh/core/testing';
import { check } from './check.mjs';
import { FS_BIN } from './server.mjs';
import { median } from './stats.mjs';
import { generateTree } from './tree.mjs';

const ROUNDS = 9;
const base = process.env.FS_BASE_BIN;
check(base, 'FS_BASE_BIN must name the built fs bin to compare with');
const folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-fs-ab-'));
const workspace = path.join(folder, 'ws');
mkdirSync(path.join(workspace, 'tree'), { recursive: true });
generateTree(path.join(workspace, 'tree'), { markerCounts: { literal: 300, regex: 350, paged: 5000 } });
const start = (bin, name) =>
  spawnStdioClient(process.execPath, [bin, '--root', workspace, '--log-level', 'warning'], {
    env: { TOOLMESH_DATA_DIR: path.join(folder, `data-${name}`) },
  });
const builds = { base: await start(base, 'base'), this: await start(FS_BIN, 'this') };
const calls = {
  'search_text, literal, whole tree': {
    name: 'search_text',
    arguments: { path: 'tree', pattern: 'FIXME(bench): flaky upstream', maxTokens: 64000 },
  },
  // Walks every folder and matches no file: the walk alone.
  'search_files, whole tree, no match': {
    name: 'search_files',
    arguments: { path: 'tree', patterns: '*.nomatch' },
  },
};
const times = Object.fromEntries(
  Object.keys(builds).map((build) => [
    build,
    Object.fromEntries(Object.keys(calls).map((call) => [call, []])),
  ]),
);
try {
  for (let round = 0; round <= ROUNDS; round++) {
    for (const build of round % 2 ? ['base', 'this'] : ['this', 'base']) {
      for (const [label, call] of Object.entries(calls)) {
        const began = performance.now();
        const answer = await builds[build].client.callTool(call);
        check(!answer.isError, `${build} ${label}: ${JSON.stringify(answer.content)}`);
        // Round 0 warms both up.
        if (round > 0) times[build][label].push(performance.now() - began);
      }
    }
  }
  for (const label of Object.keys(calls)) {
    const [was, now] = [median(times.base[label]), median(times.this[label])];
    process.stdout.write(
      `${label}: base ${was.toFixed(0)} ms, this ${now.toFixed(0)} ms, this / base ${(now / was).toFixed(2)}\n`,
    );
  }
} finally {
  for (const client of Object.values(builds)) await client.close();
  rmSync(folder, { recursive: true, force: true });
}
