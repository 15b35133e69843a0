// Start-up of `toolmesh serve` with no config, which runs every installed first-party server
// (@toolmesh/server-*), to its first tools/list answer; and its resident memory once up.
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { check } from './check.mjs';
import { treeMemoryOf } from './processes.mjs';
import { summarize } from './stats.mjs';
import { startToolmeshStdio } from './toolmesh.mjs';

export async function benchmarkStartup({ folder, dataDir, runs, log }) {
  // An empty folder: no toolmesh.json to pick up, and the servers' root.
  const root = mkdtempSync(path.join(folder, 'startup-'));
  log(`bench: toolmesh serve with no config, ${runs} cold starts`);
  let tools = [];
  let memory;
  const times = [];
  try {
    // One unmeasured start first, as the other benchmarks warm up: it fills the OS file cache.
    for (let run = 0; run <= runs; run++) {
      const start = performance.now();
      const toolmesh = await startToolmeshStdio({ cwd: root, dataDir });
      try {
        tools = (await toolmesh.client.listTools()).tools.map((tool) => tool.name);
        if (run > 0) times.push(performance.now() - start);
        memory = treeMemoryOf(toolmesh.pid);
      } finally {
        await toolmesh.close();
      }
    }
    const servers = [
      ...new Set(tools.filter((name) => name.includes('__')).map((name) => name.split('__')[0])),
    ];
    check(servers.length > 0, `toolmesh listed no server's tools: ${tools}`);
    return { ...summarize(times), tools: tools.length, servers, memory };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
