// Instructions the aggregator's main thread spends per proxied trivial call (valgrind's callgrind),
// this build against another, for each way a client reaches it. Unlike wall or CPU time, an
// instruction count barely moves with what else the machine does, so two builds can be compared
// on a busy machine. Downstream: the bench's echo server over stdio (2025).
//
//   node test/bench/call-instructions.mjs --base <other checkout>/aggregator/dist/index.js \
//     [--calls 2000] [--warmup 3000] [stdio-2025 stdio-2026 http-2025 http-2026]
//
// The warm-up runs before counting starts, so V8 has compiled the hot path; the count covers the
// calls alone. Needs valgrind (on every machine here).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  connectHttpClient,
  connectModernHttpClient,
  spawnModernStdioClient,
  spawnStdioClient,
} from '@toolmesh/core/testing';
import { echoOf } from './aggregator-call-cpu.mjs';
import { ECHO_STDIO } from './aggregator-overhead.mjs';
import { table } from './markdown.mjs';
import { startProcess } from './processes.mjs';
import { AGGREGATOR_BIN, writeConfig } from './toolmesh.mjs';

const PATHS = ['stdio-2025', 'stdio-2026', 'http-2025', 'http-2026'];

const { values, positionals } = parseArgs({
  options: {
    base: { type: 'string' },
    calls: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '3000' },
  },
  allowPositionals: true,
});
if (!values.base) throw new Error('--base <dist/index.js of the build to compare with> is required');
const unknown = positionals.filter((name) => !PATHS.includes(name));
if (unknown.length > 0)
  throw new Error(`unknown path ${unknown.join(', ')}: give some of ${PATHS.join(', ')}`);
const paths = positionals.length > 0 ? positionals : PATHS;
const calls = Number(values.calls);
const warmup = Number(values.warmup);

/** Callgrind's total of each thread's file (`<out>-01` is the main thread) after counting `calls`. */
async function instructionsPerCall(bin, route) {
  const [transport, era] = route.split('-');
  const folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-instructions-'));
  const out = path.join(folder, 'callgrind.out');
  const valgrind = [
    '--tool=callgrind',
    '--separate-threads=yes',
    '--instr-atstart=no',
    '--smc-check=all-non-file',
    `--callgrind-out-file=${out}`,
    process.execPath,
    bin,
    'serve',
    '--config',
    writeConfig(folder, 'echo', { echo: ECHO_STDIO }),
    '--log-level',
    'warning',
  ];
  const env = { TOOLMESH_DATA_DIR: folder };
  let connected;
  let pid;
  let server;
  if (transport === 'stdio') {
    connected = await (era === '2026' ? spawnModernStdioClient : spawnStdioClient)('valgrind', valgrind, {
      cwd: folder,
      env,
    });
    pid = connected.pid;
  } else {
    server = await startProcess({
      command: 'valgrind',
      args: [...valgrind, '--transport', 'http', '--port', '0'],
      cwd: folder,
      env,
      ready: /serving MCP at (http:\/\/\S+\/mcp)\b/,
      timeoutMs: 600_000,
    });
    pid = server.pid;
    connected = await (era === '2026' ? connectModernHttpClient : connectHttpClient)(server.url);
  }
  try {
    const call = await echoOf(connected);
    for (let i = 0; i < warmup; i++) await call();
    execFileSync('callgrind_control', ['--instr=on', String(pid)], { stdio: 'ignore' });
    for (let i = 0; i < calls; i++) await call();
    execFileSync('callgrind_control', ['--instr=off', String(pid)], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['--dump', String(pid)], { stdio: 'ignore' });
    const totals = readdirSync(folder)
      .filter((file) => file.startsWith('callgrind.out'))
      .map((file) => ({
        main: file.endsWith('-01'),
        total: Number(/^totals:\s+(\d+)/m.exec(readFileSync(path.join(folder, file), 'utf8'))?.[1] ?? 0),
      }));
    const sum = (list) => list.reduce((all, { total }) => all + total, 0) / calls / 1000;
    return { main: sum(totals.filter(({ main }) => main)), all: sum(totals) };
  } finally {
    await connected.close();
    await server?.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

const HEADER = [
  'Client to toolmesh',
  'Base: main thread, thousand instructions per call',
  'This build',
  'Ratio',
  'Ratio, all threads',
];
// A row as soon as its path is counted: each takes minutes under valgrind.
process.stdout.write(`${table(HEADER, [])}\n`);
for (const route of paths) {
  // Each build once, the base first: a count does not drift with the machine, so no alternating is needed.
  const base = await instructionsPerCall(values.base, route);
  const built = await instructionsPerCall(AGGREGATOR_BIN, route);
  const row = [
    route,
    base.main.toFixed(1),
    built.main.toFixed(1),
    (built.main / base.main).toFixed(2),
    (built.all / base.all).toFixed(2),
  ];
  process.stdout.write(`| ${row.join(' | ')} |\n`);
}
