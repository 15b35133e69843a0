// `pnpm bench`: benchmarks of the built fs server and aggregator, driven from outside by the real
// MCP SDK client, written to docs/benchmarks.md. See that page for what is measured and how.
// `node test/bench/run.mjs --only audit` runs the audit log's part alone and rewrites only its section;
// `--only code-graph`, `--only git`, `--only tickets` and `--only memory` do the same for those servers' sections.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { benchmarkAggregator, benchmarkAggregatorAudit } from './aggregator-bench.mjs';
import { renderAuditSection } from './aggregator-report.mjs';
import { benchmarkCodeGraph } from './code-graph-bench.mjs';
import { renderCodeGraphSection } from './code-graph-report.mjs';
import { benchmarkFs } from './fs-bench.mjs';
import { benchmarkGit, renderGitSection } from './git-bench.mjs';
import { machineFacts } from './machine.mjs';
import { benchmarkMemory, renderMemorySection } from './memory-bench.mjs';
import { stopAll } from './processes.mjs';
import { renderReport } from './report.mjs';
import { ms } from './stats.mjs';
import { benchmarkTickets, renderTicketsSection } from './tickets-bench.mjs';
import { printEachWarningOnce, warningsSeen } from './warnings.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUTPUT = path.join(REPO, 'docs', 'benchmarks.md');

const log = (line) => process.stderr.write(`${line}\n`);

/** The page with one section replaced, up to the next heading of its level or above (or added at the end). */
function withSection(page, section) {
  const heading = section.slice(0, section.indexOf('\n'));
  const start = page.indexOf(`${heading}\n`);
  if (start < 0) {
    const warnings = page.indexOf('\n## Warnings in the bench process');
    const at = warnings < 0 ? page.length : warnings;
    return `${page.slice(0, at).trimEnd()}\n\n${section}\n${page.slice(at)}`;
  }
  const level = /^#+/.exec(heading)[0].length;
  const next = page.slice(start + heading.length).search(new RegExp(`\\n#{2,${level}} `));
  const end = next < 0 ? page.length : start + heading.length + next;
  return `${page.slice(0, start)}${section}\n${page.slice(end)}`;
}

async function auditOnly(base) {
  const audit = await benchmarkAggregatorAudit({ folder: path.join(base, 'audit'), log });
  writeFileSync(OUTPUT, withSection(readFileSync(OUTPUT, 'utf8'), renderAuditSection({ audit })));
  log(`bench: rewrote the audit log section of ${path.relative(REPO, OUTPUT)}`);
}

async function codeGraphOnly(base) {
  const codeGraph = await benchmarkCodeGraph({ base: path.join(base, 'code-graph'), log });
  writeFileSync(OUTPUT, withSection(readFileSync(OUTPUT, 'utf8'), renderCodeGraphSection(codeGraph)));
  log(`bench: rewrote the code-graph section of ${path.relative(REPO, OUTPUT)}`);
}

async function gitOnly(base) {
  const git = await benchmarkGit({ base: path.join(base, 'git'), log });
  writeFileSync(OUTPUT, withSection(readFileSync(OUTPUT, 'utf8'), renderGitSection(git)));
  log(`bench: rewrote the git section of ${path.relative(REPO, OUTPUT)}`);
}

async function ticketsOnly(base) {
  const tickets = await benchmarkTickets({ base, log });
  writeFileSync(OUTPUT, withSection(readFileSync(OUTPUT, 'utf8'), renderTicketsSection(tickets)));
  log(`bench: rewrote the tickets section of ${path.relative(REPO, OUTPUT)}`);
}

async function memoryOnly(base) {
  const memory = await benchmarkMemory({ base, log });
  writeFileSync(OUTPUT, withSection(readFileSync(OUTPUT, 'utf8'), renderMemorySection(memory)));
  log(`bench: rewrote the memory section of ${path.relative(REPO, OUTPUT)}`);
}

/** The parts `--only` can run alone. */
const ONLY = {
  audit: auditOnly,
  'code-graph': codeGraphOnly,
  git: gitOnly,
  tickets: ticketsOnly,
  memory: memoryOnly,
};

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
    const only = process.argv.indexOf('--only');
    if (only >= 0) {
      const part = ONLY[process.argv[only + 1]];
      if (!part) throw new Error(`--only takes one part: ${Object.keys(ONLY).join(' or ')}`);
      await part(base);
      return;
    }
    const facts = await machineFacts();
    const fs = await benchmarkFs({ base: path.join(base, 'fs'), open, log });
    const aggregator = await benchmarkAggregator({ base, log });
    const codeGraph = await benchmarkCodeGraph({ base: path.join(base, 'code-graph'), log });
    const git = await benchmarkGit({ base: path.join(base, 'git'), log });
    const tickets = await benchmarkTickets({ base, log });
    const memory = await benchmarkMemory({ base, log });
    const report = renderReport({
      facts,
      fs,
      aggregator,
      codeGraph,
      git,
      tickets,
      memory,
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
