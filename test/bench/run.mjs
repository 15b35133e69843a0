// `pnpm bench`: benchmarks of the built fs server and aggregator, driven from outside by the real
// MCP SDK client, written to docs/benchmarks.md. See that page for what is measured and how.
// `node test/bench/run.mjs --only audit` runs the audit log's part alone and rewrites only its section;
// `--only <server>` (code-graph, code-graph-self, git, tickets, memory, feeds, rigs) does the same for that
// server's section, `--only shared-state` the shared state's (Redis, PostgreSQL), `--only install` the
// install sizes, `--only memory-at-rest` the servers' idle memory, and `--only overhead` / `--only search` /
// `--only startup` / `--only cli-timings` the aggregator's proxy overhead, tool search at scale, start-up and
// one-shot CLI sections.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  benchmarkAggregator,
  benchmarkAggregatorAudit,
  benchmarkAggregatorCli,
  benchmarkAggregatorOverhead,
  benchmarkAggregatorSearch,
  benchmarkAggregatorSharedState,
  benchmarkAggregatorStartup,
} from './aggregator-bench.mjs';
import {
  renderAuditSection,
  renderCliSection,
  renderOverheadSection,
  renderSearchSection,
  renderStartupSection,
} from './aggregator-report.mjs';
import { renderSharedStateSection } from './aggregator-shared-state.mjs';
import { benchmarkCodeGraph } from './code-graph-bench.mjs';
import { renderCodeGraphSection } from './code-graph-report.mjs';
import { benchmarkCodeGraphSelf, renderCodeGraphSelfSection } from './code-graph-self-bench.mjs';
import { benchmarkEras, renderErasSection } from './eras-bench.mjs';
import { benchmarkFeeds, renderFeedsSection } from './feeds-bench.mjs';
import { benchmarkFleet, renderFleetSection } from './fleet-bench.mjs';
import { benchmarkFs } from './fs-bench.mjs';
import { benchmarkGit, renderGitSection } from './git-bench.mjs';
import { benchmarkIdleMemory, renderIdleMemorySection } from './idle-memory.mjs';
import { benchmarkInstall, renderInstallSection } from './install-bench.mjs';
import { machineFacts } from './machine.mjs';
import { benchmarkMemory, renderMemorySection } from './memory-bench.mjs';
import { stopAll } from './processes.mjs';
import { renderReport } from './report.mjs';
import { benchmarkRigs, renderRigsSection } from './rigs-bench.mjs';
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
  return `${page.slice(0, start)}${section.trimEnd()}\n${page.slice(end)}`;
}

async function auditOnly(base) {
  const audit = await benchmarkAggregatorAudit({ folder: path.join(base, 'audit'), log });
  writeFileSync(OUTPUT, withSection(readFileSync(OUTPUT, 'utf8'), renderAuditSection({ audit })));
  log(`bench: rewrote the audit log section of ${path.relative(REPO, OUTPUT)}`);
}

async function sharedStateOnly(base) {
  const sharedState = await benchmarkAggregatorSharedState({ folder: path.join(base, 'shared-state'), log });
  writeFileSync(OUTPUT, withSection(readFileSync(OUTPUT, 'utf8'), renderSharedStateSection({ sharedState })));
  log(`bench: rewrote the shared state section of ${path.relative(REPO, OUTPUT)}`);
}

/**
 * The servers measured one after another after the fs server and the aggregator: how each is
 * run in a folder of its own under the bench's base, and how its section is rendered.
 */
const SERVER_SECTIONS = {
  'code-graph': {
    run: (base) => benchmarkCodeGraph({ base: path.join(base, 'code-graph'), log }),
    render: renderCodeGraphSection,
  },
  'code-graph-self': {
    run: (base) => benchmarkCodeGraphSelf({ base, log }),
    render: renderCodeGraphSelfSection,
  },
  git: { run: (base) => benchmarkGit({ base: path.join(base, 'git'), log }), render: renderGitSection },
  tickets: { run: (base) => benchmarkTickets({ base, log }), render: renderTicketsSection },
  memory: { run: (base) => benchmarkMemory({ base, log }), render: renderMemorySection },
  feeds: { run: (base) => benchmarkFeeds({ base, log }), render: renderFeedsSection },
  rigs: { run: (base) => benchmarkRigs({ base: path.join(base, 'rigs'), log }), render: renderRigsSection },
  install: { run: (base) => benchmarkInstall({ base, log }), render: renderInstallSection },
  'memory-at-rest': { run: (base) => benchmarkIdleMemory({ base, log }), render: renderIdleMemorySection },
  eras: { run: () => benchmarkEras({ log }), render: renderErasSection },
  fleet: { run: (base) => benchmarkFleet({ base, log }), render: renderFleetSection },
};

function sectionOnly(name, { run, render }) {
  return async (base) => {
    const figures = await run(base);
    writeFileSync(OUTPUT, withSection(readFileSync(OUTPUT, 'utf8'), render(figures)));
    log(`bench: rewrote the ${name} section of ${path.relative(REPO, OUTPUT)}`);
  };
}

/** Subsections of the aggregator's part that `--only` runs alone (the full run has them in its own part). */
const AGGREGATOR_SUBSECTIONS = {
  overhead: {
    run: (base) => benchmarkAggregatorOverhead({ folder: path.join(base, 'overhead'), log }),
    render: renderOverheadSection,
  },
  search: { run: () => benchmarkAggregatorSearch({ log }), render: renderSearchSection },
  startup: {
    run: (base) => benchmarkAggregatorStartup({ folder: path.join(base, 'startup'), log }),
    render: (figures) => renderStartupSection(figures),
  },
  'cli-timings': {
    run: (base) => benchmarkAggregatorCli({ folder: path.join(base, 'cli-timings'), log }),
    render: renderCliSection,
  },
};

/** The parts `--only` can run alone. */
const ONLY = {
  audit: auditOnly,
  'shared-state': sharedStateOnly,
  ...Object.fromEntries(
    Object.entries(AGGREGATOR_SUBSECTIONS).map(([name, part]) => [name, sectionOnly(name, part)]),
  ),
  ...Object.fromEntries(
    Object.entries(SERVER_SECTIONS).map(([name, part]) => [name, sectionOnly(name, part)]),
  ),
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
    const sections = [];
    for (const { run, render } of Object.values(SERVER_SECTIONS)) sections.push(render(await run(base)));
    const report = renderReport({
      facts,
      fs,
      aggregator,
      sections,
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
