// Start-up of this build's `toolmesh serve` against another build's (`--base BIN`, e.g. a built
// checkout of main), in one run: spawn to the answers to initialize and the first tools/list, the
// two bins alternating run by run, each with its own data and code cache (one unmeasured run of
// each first, as a user's first). When NODE_EXTRA_CA_CERTS is set, as on some machines, Node
// parses that bundle in every process: the runs are made with it as it is and with it unset.
//
//   node test/bench/run.mjs --only startup   (this build alone, into docs/benchmarks.md)
//   node test/bench/startup-ab.mjs --base /path/to/main/aggregator/dist/index.js [--runs 10]
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { serveOnce } from './aggregator-startup.mjs';
import { cpuMsOf } from './cpu-time.mjs';
import { median } from './stats.mjs';
import { AGGREGATOR_BIN } from './toolmesh.mjs';

const { values } = parseArgs({
  options: { base: { type: 'string' }, runs: { type: 'string', default: '10' } },
});
if (!values.base) {
  process.stderr.write('usage: node test/bench/startup-ab.mjs --base BIN [--runs N]\n');
  process.exit(2);
}
const bins = { base: path.resolve(values.base), this: AGGREGATOR_BIN };
const variants = [
  ['as this machine is', {}],
  ...(process.env.NODE_EXTRA_CA_CERTS
    ? [['NODE_EXTRA_CA_CERTS unset', { NODE_EXTRA_CA_CERTS: undefined }]]
    : []),
];

/** Spawn to initialize's answer and to the first tools/list's, in ms, and the CPU toolmesh had used at the first. */
async function startOnce(bin, cwd, dataDir, env) {
  const toolmesh = serveOnce({ cwd, dataDir, bin, env });
  try {
    const initialized = await toolmesh.initialized;
    const cpu = cpuMsOf(toolmesh.pid);
    const listed = toolmesh.next(2);
    toolmesh.send({ method: 'notifications/initialized' });
    toolmesh.send({ id: 2, method: 'tools/list' });
    return { initialize: initialized.at, list: (await listed).at, cpu };
  } finally {
    await toolmesh.close();
  }
}

const folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-startup-ab-'));
try {
  const root = path.join(folder, 'root');
  mkdirSync(root);
  const rows = [];
  for (const [label, env] of variants) {
    const times = { base: [], this: [] };
    for (let run = 0; run <= Number(values.runs); run++) {
      for (const [name, bin] of Object.entries(bins)) {
        const measured = await startOnce(bin, root, path.join(folder, name), env);
        if (run > 0) times[name].push(measured);
      }
    }
    const of = (name, key) => median(times[name].map((measured) => measured[key]));
    const measures = {
      initialize: 'initialize',
      list: 'first tools/list',
      cpu: 'initialize, CPU (user + system)',
    };
    for (const [key, measure] of Object.entries(measures)) {
      const [base, now] = [of('base', key), of('this', key)];
      rows.push(
        `| ${measure}, ${label} | ${base.toFixed(0)} ms | **${now.toFixed(0)} ms** | ${(now / base).toFixed(2)} |`,
      );
    }
  }
  process.stdout.write(
    `Load average (1 min) at the end: ${os.loadavg()[0].toFixed(1)}; ${values.runs} runs of each, medians.\n\n| Spawn to the answer to | base | this build | ratio |\n|---|---|---|---|\n${rows.join('\n')}\n`,
  );
} finally {
  rmSync(folder, { recursive: true, force: true });
}
