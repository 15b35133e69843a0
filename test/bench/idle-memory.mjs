// Resident memory at rest (issue 26): each first-party server started alone over stdio and idle
// after its first tools/list; and the README's main command (the aggregator with every server)
// once code-graph has indexed this repository and gone idle, with the servers in a process each
// and in shared processes (`--processes separate|shared`). RSS is read from /proc, the way `ps`
// and `top` show it to the person who runs toolmesh.
// `node test/bench/run.mjs --only memory-at-rest` rewrites this section alone.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { spawnStdioClient } from '@toolmesh/core/testing';
import { CHECKER_IDLE_MS } from '@toolmesh/server-code-graph';
import { isSettled } from './code-graph-server.mjs';
import { SERVERS } from './install-sizes.mjs';
import { table } from './markdown.mjs';
import { runAloneWhenMain } from './run-alone.mjs';
import { memoryOf } from './server.mjs';
import { AGGREGATOR_BIN } from './toolmesh.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The server host that runs first-party servers sharing a process. */
const HOST_PROGRAM = createRequire(import.meta.url).resolve('@toolmesh/core/host');

/** The targets of issue 26, in MiB of resident memory. */
export const RESIDENT_TARGETS_MIB = { server: 60, mainCommand: 400 };

/** How long a process is left alone after it answered, before its memory is read: idle, not starting. */
const SETTLE_MS = 2000;

const mibOf = (kib) => kib / 1024;

/** The built bin of `@toolmesh/server-<name>`. */
const serverBin = (name) => path.join(REPO, 'servers', name, 'dist', 'index.js');

/** Every process below `pid` with its command line, from /proc. */
function childrenOf(pid) {
  const found = [];
  const walk = (parent) => {
    let tasks = [];
    try {
      tasks = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim().split(/\s+/);
    } catch {
      return;
    }
    for (const child of tasks.filter(Boolean).map(Number)) {
      const argv = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0');
      found.push({ pid: child, argv });
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** Which first-party server a command line runs (and through what, when not node), or its program. */
function processLabel(argv) {
  const script = argv.find((arg) => arg.endsWith('.js'));
  const server = script === HOST_PROGRAM ? 'server host' : /servers\/([^/]+)\/dist\//.exec(script ?? '')?.[1];
  const program = path.basename(argv[0] ?? '?');
  if (!server) return path.basename(script ?? program);
  return program === 'node' || argv[0] === process.execPath ? server : `${server} (${program})`;
}

async function idleServer(name, { root, dataDir }) {
  const spawned = await spawnStdioClient(process.execPath, [serverBin(name), '--root', root], {
    cwd: root,
    env: { TOOLMESH_DATA_DIR: dataDir },
  });
  try {
    const { tools } = await spawned.client.listTools();
    await sleep(SETTLE_MS);
    const { rssKiB, hwmKiB } = memoryOf(spawned.pid);
    return { server: name, tools: tools.length, rssMiB: mibOf(rssKiB), peakMiB: mibOf(hwmKiB) };
  } finally {
    await spawned.close();
  }
}

/** code-graph's index_status through the aggregator, until every root has settled. */
async function codeGraphSettled(spawned, log) {
  for (;;) {
    const result = await spawned.client.callTool({ name: 'code-graph__index_status', arguments: {} });
    const roots = result.structuredContent?.roots;
    if (result.isError || !Array.isArray(roots)) {
      throw new Error(`code-graph__index_status failed: ${JSON.stringify(result.content)}`);
    }
    if (roots.length > 0 && roots.every(isSettled)) return roots;
    log(
      `bench: code-graph ${roots.map((root) => `${root.phase}, precise ${root.precise?.state}`).join('; ')}`,
    );
    await sleep(5000);
  }
}

async function mainCommand({ dataDir, log, processes }) {
  // The README's `pnpm start` over stdio (no bearer token to pass): the same servers on the same root.
  const spawned = await spawnStdioClient(
    process.execPath,
    [AGGREGATOR_BIN, 'serve', '--root', REPO, '--log-level', 'warning', '--processes', processes],
    { cwd: REPO, env: { TOOLMESH_DATA_DIR: dataDir } },
  );
  try {
    for (;;) {
      const names = (await spawned.client.listTools()).tools.map((tool) => tool.name);
      if (SERVERS.every((server) => names.some((name) => name.startsWith(`${server}__`)))) break;
      await sleep(500);
    }
    const began = performance.now();
    const roots = await codeGraphSettled(spawned, log);
    const indexMs = performance.now() - began;
    // Idle: past the time code-graph keeps its checker worker for the next edit.
    await sleep(CHECKER_IDLE_MS + SETTLE_MS);
    const processes = [{ pid: spawned.pid, argv: [AGGREGATOR_BIN] }, ...childrenOf(spawned.pid)].map(
      ({ pid, argv }) => {
        const { rssKiB, hwmKiB } = memoryOf(pid);
        return {
          label: pid === spawned.pid ? 'aggregator' : processLabel(argv),
          rssMiB: mibOf(rssKiB),
          peakMiB: mibOf(hwmKiB),
        };
      },
    );
    const files = roots.reduce((sum, root) => sum + (root.files ?? 0), 0);
    return {
      processes,
      nodeProcesses: processes.filter((entry) => !/\(|watchdog/.test(entry.label)).length,
      totalMiB: processes.reduce((sum, entry) => sum + entry.rssMiB, 0),
      files,
      indexMs,
      precise: roots.map((root) => root.precise?.state).join(', '),
    };
  } finally {
    await spawned.close();
  }
}

export async function benchmarkIdleMemory({ base, log }) {
  const folder = path.join(base, 'memory-at-rest');
  const root = path.join(folder, 'project');
  mkdirSync(root, { recursive: true });
  const servers = [];
  for (const name of SERVERS) {
    log(`bench: ${name} idle over stdio`);
    servers.push(await idleServer(name, { root, dataDir: path.join(folder, 'data', name) }));
  }
  const main = {};
  for (const processes of ['separate', 'shared']) {
    log(
      `bench: the aggregator with every server (${processes}) on this repository, until code-graph is idle`,
    );
    main[processes] = await mainCommand({
      dataDir: path.join(folder, 'data', `main-${processes}`),
      log,
      processes,
    });
    main[processes].load = os.loadavg()[0].toFixed(1);
  }
  return { servers, main, node: process.version };
}

const fixed = (mib) => mib.toFixed(1);
const within = (mib, target) => `${mib <= target ? '' : '**over** '}${target}`;

function mainTable(main, heading) {
  return table(
    [`${heading}, code-graph idle and indexed (precise: ${main.precise})`, 'RSS (MiB)', 'Peak (MiB)'],
    [
      ...main.processes.map((entry) => [entry.label, fixed(entry.rssMiB), fixed(entry.peakMiB)]),
      [
        `**all ${main.processes.length} processes** (target ${within(main.totalMiB, RESIDENT_TARGETS_MIB.mainCommand)})`,
        `**${fixed(main.totalMiB)}**`,
        '',
      ],
    ],
  );
}

export function renderIdleMemorySection(run) {
  const { separate, shared } = run.main;
  return `## Memory at rest

Resident memory (VmRSS from \`/proc\`, MiB) with Node ${run.node}. Each first-party server is started
alone from its built bin over stdio with \`--root\` an empty folder, asked for \`tools/list\` by the SDK
client, and read ${SETTLE_MS / 1000} s later, past the first 1 s pause in requests at which a server gives back
the heap its start-up left (shared/core/src/heap-release.ts); "peak" is its VmHWM, start-up's or that
release's. The README's main command is measured
over stdio (\`toolmesh serve --root .\` in this repository: the same servers and root as \`pnpm start\`,
without the bearer token HTTP needs) twice, with each server in a process of its own
(\`--processes separate\`) and with the first-party servers in shared processes (\`--processes shared\`:
one server host for each set of sandbox settings, see [aggregator.md](aggregator.md#shared-processes)),
each from an empty data directory. Each is read once every server has listed its tools and
code-graph's \`index_status\` reports the first index and its precise pass done (${separate.files} files,
${fixed(separate.indexMs / 1000)} s and ${fixed(shared.indexMs / 1000)} s after the last server joined), then
${(CHECKER_IDLE_MS + SETTLE_MS) / 1000} s later (past the ${CHECKER_IDLE_MS / 1000} s code-graph keeps its checker worker for the next edit),
each process of the tree apart; the small processes are the bubblewrap wrappers each sandboxed
process is started through, and the orphan watchdog.
Load average when each run was read: ${separate.load} (separate) and ${shared.load} (shared) on ${os.cpus().length} cores
shared with other work.
\`node test/bench/run.mjs --only memory-at-rest\` (after \`pnpm build\`) runs this section alone and
rewrites it.

${table(
  ['Server alone, idle', 'Tools', 'RSS (MiB)', 'Peak (MiB)', 'Target (MiB)'],
  run.servers.map((entry) => [
    `\`toolmesh-${entry.server}\``,
    String(entry.tools),
    `**${fixed(entry.rssMiB)}**`,
    fixed(entry.peakMiB),
    within(entry.rssMiB, RESIDENT_TARGETS_MIB.server),
  ]),
)}

| Main command | Node processes | All processes | RSS (MiB) | Target (MiB) |
|---|---|---|---|---|
| \`--processes separate\` | ${separate.nodeProcesses} | ${separate.processes.length} | **${fixed(separate.totalMiB)}** | ${within(separate.totalMiB, RESIDENT_TARGETS_MIB.mainCommand)} |
| \`--processes shared\` | ${shared.nodeProcesses} | ${shared.processes.length} | **${fixed(shared.totalMiB)}** | ${within(shared.totalMiB, RESIDENT_TARGETS_MIB.mainCommand)} |

${mainTable(separate, 'Separate processes')}

${mainTable(shared, 'Shared processes')}
`;
}

runAloneWhenMain(import.meta.url, 'idle-memory', benchmarkIdleMemory, renderIdleMemorySection);
