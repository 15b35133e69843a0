// Start-up of `toolmesh serve` with no config, which runs every installed first-party server
// (@toolmesh/server-*): spawn to its answers to initialize and the first tools/list, then to the servers joining
// (the tools/list_changed that ends the start-up wait), and its resident memory then. The client
// is raw JSON-RPC lines on the process's stdio, so the time is toolmesh's answer, not what a
// client library does with it (the v1 SDK client compiles every listed output schema).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { check } from './check.mjs';
import { treeMemoryOf } from './processes.mjs';
import { summarize } from './stats.mjs';
import { AGGREGATOR_BIN } from './toolmesh.mjs';

/** How long the servers may take to join before the bench gives up on a run. */
const JOIN_TIMEOUT_MS = 60_000;

const line = (message) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;
const INITIALIZE = line({
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
});

/**
 * One `toolmesh serve` over stdio, from spawn: its answers by id, and its notifications, as they
 * come. Its code cache is kept beside its data (the first run writes it, as a user's first does).
 * `env`: more variables for it (undefined: unset).
 */
export function serveOnce({ cwd, dataDir, bin, env = {} }) {
  const start = performance.now();
  const environment = {
    ...process.env,
    TOOLMESH_DATA_DIR: dataDir,
    TOOLMESH_CACHE_DIR: path.join(dataDir, 'cache'),
    ...env,
  };
  for (const [name, value] of Object.entries(environment)) if (value === undefined) delete environment[name];
  const child = spawn(process.execPath, [bin, 'serve', '--log-level', 'error'], {
    cwd,
    env: environment,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting = new Map();
  let pending = '';
  child.stdout.on('data', (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop();
    for (const text of lines.filter(Boolean)) {
      const message = JSON.parse(text);
      const key = message.id ?? message.method;
      waiting.get(key)?.({ at: performance.now() - start, message });
      waiting.delete(key);
    }
  });
  const next = (key) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${key} within ${JOIN_TIMEOUT_MS} ms`)),
        JOIN_TIMEOUT_MS,
      );
      waiting.set(key, (got) => {
        clearTimeout(timer);
        resolve(got);
      });
    });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    pid: child.pid,
    send: (message) => child.stdin.write(line(message)),
    initialized: (() => {
      const answer = next(1);
      child.stdin.write(INITIALIZE);
      return answer;
    })(),
    next,
    close: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

export async function benchmarkStartup({ folder, dataDir, runs, log, bin = AGGREGATOR_BIN }) {
  // An empty folder: no toolmesh.json to pick up, and the servers' root.
  const root = mkdtempSync(path.join(folder, 'startup-'));
  log(`bench: toolmesh serve with no config, ${runs} cold starts`);
  const load = os.loadavg()[0].toFixed(1);
  let tools = [];
  let memory;
  const times = [];
  const initializeTimes = [];
  const joinTimes = [];
  try {
    // One unmeasured start first, as the other benchmarks warm up: it fills the OS file cache,
    // and leaves the catalogue cache a user has after any serve.
    for (let run = 0; run <= runs; run++) {
      const toolmesh = serveOnce({ cwd: root, dataDir, bin });
      try {
        const initialized = await toolmesh.initialized;
        const joined = toolmesh.next('notifications/tools/list_changed');
        const listed = toolmesh.next(2);
        toolmesh.send({ method: 'notifications/initialized' });
        toolmesh.send({ id: 2, method: 'tools/list' });
        const answer = await listed;
        tools = answer.message.result.tools.map((tool) => tool.name);
        const joinedMs = (await joined).at;
        if (run > 0) {
          times.push(answer.at);
          initializeTimes.push(initialized.at);
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
      initialize: summarize(initializeTimes),
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
