// The CPU a forwarded call of a legacy session costs each process, this build against another
// (TOOLMESH_BASE_BIN, e.g. the base commit's built dist/index.js) in one run: for each build a
// fleet of two replicas on the machine's Redis (a key prefix each), a session on the first (the
// owner), and the bare Node proxy (hop-proxy.mjs) in front of that owner as the floor of a hop.
// Blocks of calls of each kind (on the owner, forwarded by the other replica, through the bare
// proxy) alternate between the builds, so a loaded machine's drift falls on both alike; figures
// are CPU per call from the scheduler's counts (ns), medians of the rounds (issue 23).
// Usage: TOOLMESH_BASE_BIN=/path/to/dist/index.js node test/bench/fleet-cpu-ab.mjs
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectHttpClient } from '@toolmesh/core/testing';
import { check } from './check.mjs';
import { preciseTreeCpuMsOf } from './cpu-time.mjs';
import { callerOf, HOP_PROXY, startReplica, writeFleetConfig } from './fleet-bench.mjs';
import { startProcess } from './processes.mjs';
import { median } from './stats.mjs';
import { AGGREGATOR_BIN } from './toolmesh.mjs';

const base = process.env.TOOLMESH_BASE_BIN;
check(base, 'set TOOLMESH_BASE_BIN to the dist/index.js of the build to compare with');
const calls = Number(process.env.FLEET_CPU_CALLS ?? 300);
const rounds = Number(process.env.FLEET_CPU_ROUNDS ?? 7);

/** A fleet of two replicas of `bin`, a session on the first, and the bare proxy in front of it. */
async function open(bin, folder) {
  mkdirSync(folder);
  const config = writeFleetConfig(folder, 'toolmesh-fleet-ab');
  const started = [];
  const stop = async () => {
    for (const each of started.reverse()) await each.stop();
  };
  try {
    started.push(await startReplica(config, folder, 'owner', bin));
    started.push(await startReplica(config, folder, 'forwarder', bin));
    const [owner, forwarder] = started;
    const hop = await startProcess({
      command: process.execPath,
      args: [HOP_PROXY, new URL(owner.url).origin],
      ready: /hop proxy listening on (http:\/\/\S+)/,
    });
    started.push(hop);
    const client = await connectHttpClient(owner.url);
    const sessionId = client.client.transport.sessionId;
    const calls = {
      local: callerOf(owner.url, sessionId),
      forwarded: callerOf(forwarder.url, sessionId),
      hop: callerOf(`${hop.url}/mcp`, sessionId),
    };
    return {
      processes: { owner, forwarder, hop },
      calls,
      close: async () => {
        for (const call of Object.values(calls)) call.close();
        await client.close().catch(() => undefined);
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** CPU per call (ms) of each of the side's processes over `calls` calls of `kind`. */
async function block(side, kind) {
  const processes = Object.entries(side.processes);
  const before = processes.map(([, started]) => preciseTreeCpuMsOf(started.pid));
  for (let i = 0; i < calls; i++) await side.calls[kind]();
  return Object.fromEntries(
    processes.map(([name, started], index) => [
      name,
      (preciseTreeCpuMsOf(started.pid) - before[index]) / calls,
    ]),
  );
}

const folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-fleet-cpu-ab-'));
const sides = {};
try {
  sides.base = await open(base, path.join(folder, 'base'));
  sides.this = await open(AGGREGATOR_BIN, path.join(folder, 'this'));
  const kinds = ['local', 'forwarded', 'hop'];
  for (let i = 0; i < 100; i++)
    for (const side of Object.values(sides)) for (const kind of kinds) await side.calls[kind]();
  const seen = { base: [], this: [] };
  for (let r = 0; r < rounds; r++)
    for (const which of r % 2 === 0 ? ['base', 'this'] : ['this', 'base']) {
      const figures = {};
      for (const kind of kinds) figures[kind] = await block(sides[which], kind);
      seen[which].push(figures);
      process.stderr.write(`round ${r + 1}/${rounds} ${which}: ${JSON.stringify(figures)}\n`);
    }
  const m = (which, kind, name) => median(seen[which].map((figures) => figures[kind][name]));
  // Per round, so that the machine's drift between rounds cancels out.
  const overHop = (which) =>
    median(seen[which].map((figures) => figures.forwarded.forwarder / figures.hop.hop)).toFixed(2);
  const row = (label, kind, name) =>
    `| ${label} | ${m('base', kind, name).toFixed(3)} ms | **${m('this', kind, name).toFixed(3)} ms** | ${(m('this', kind, name) / m('base', kind, name)).toFixed(2)} |\n`;
  process.stdout.write(
    `${rounds} alternating rounds of ${calls} calls of each kind; base ${base}\n| CPU per call | base | this build | this ÷ base |\n|---|---|---|---|\n${row('forwarding replica, forwarded call', 'forwarded', 'forwarder')}${row('owner, forwarded call', 'forwarded', 'owner')}${row('owner, call on it', 'local', 'owner')}${row('bare proxy, call through it', 'hop', 'hop')}${row('owner, call through the bare proxy', 'hop', 'owner')}Forwarding replica ÷ bare proxy, per round: base ${overHop('base')}, this build ${overHop('this')}\n`,
  );
} finally {
  for (const side of Object.values(sides)) await side.close();
  rmSync(folder, { recursive: true, force: true });
}
