// Start-up of `toolmesh serve` with no config, which runs every installed first-party server
// (@toolmesh/server-*), to its first tools/list answer; then to the moment the servers have
// joined (the tools/list_changed that follows the start-up wait), and its resident memory then.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { check } from './check.mjs';
import { treeMemoryOf } from './processes.mjs';
import { summarize } from './stats.mjs';
import { startToolmeshStdio } from './toolmesh.mjs';

/** How long the servers may take to join before the bench gives up on a run. */
const JOIN_TIMEOUT_MS = 60_000;

export async function benchmarkStartup({ folder, dataDir, runs, log }) {
  // An empty folder: no toolmesh.json to pick up, and the servers' root.
  const root = mkdtempSync(path.join(folder, 'startup-'));
  log(`bench: toolmesh serve with no config, ${runs} cold starts`);
  const load = os.loadavg()[0].toFixed(1);
  let tools = [];
  let memory;
  const times = [];
  const joinTimes = [];
  try {
    // One unmeasured start first, as the other benchmarks warm up: it fills the OS file cache,
    // and leaves the catalogue cache a user has after any serve.
    for (let run = 0; run <= runs; run++) {
      const start = performance.now();
      const toolmesh = await startToolmeshStdio({ cwd: root, dataDir });
      try {
        const joined = new Promise((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`the servers did not join within ${JOIN_TIMEOUT_MS} ms`)),
            JOIN_TIMEOUT_MS,
          );
          toolmesh.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
            clearTimeout(timer);
            resolve(performance.now());
          });
        });
        tools = (await toolmesh.client.listTools()).tools.map((tool) => tool.name);
        const listedMs = performance.now() - start;
        const joinedMs = (await joined) - start;
        if (run > 0) {
          times.push(listedMs);
          joinTimes.push(joinedMs);
        }
        memory = treeMemoryOf(toolmesh.pid);
      } finally {
        await toolmesh.close();
      }
    }
    const servers = [
      ...new Set(tools.filter((name) => name.includes('__')).map((name) => name.split('__')[0])),
    ];
    check(servers.length > 0, `toolmesh listed no server's tools: ${tools}`);
    return {
      ...summarize(times),
      joined: summarize(joinTimes),
      tools: tools.length,
      servers,
      memory,
      load,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
