// `pnpm bench`: benchmarks of the built fs server and aggregator, driven from outside by the real
// MCP SDK client, written to docs/benchmarks.md. See that page for what is measured and how.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { benchmarkAggregator } from './aggregator-bench.mjs';
import { benchmarkFs } from './fs-bench.mjs';
import { machineFacts } from './machine.mjs';
import { stopAll } from './processes.mjs';
import { renderReport } from './report.mjs';
import { ms } from './stats.mjs';
import { printEachWarningOnce, warningsSeen } from './warnings.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUTPUT = path.join(REPO, 'docs', 'benchmarks.md');

const log = (line) => process.stderr.write(`${line}\n`);

async function main() {
  printEachWarningOnce();
  const began = performance.now();
  const base = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-bench-'));
  const open = new Set();
  const cleanup = async () => {
    for (const client of open) await client.close().catch(() => {});
    open.clear();
    await stopAll();
    rmSync(base, { recursive: true, force: true });
  };
  const onSignal = () => {
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const facts = await machineFacts();
    const fs = await benchmarkFs({ base: path.join(base, 'fs'), open, log });
    const aggregator = await benchmarkAggregator({ base, log });
    const report = renderReport({
      facts,
      fs,
      aggregator,
      warnings: warningsSeen(),
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
