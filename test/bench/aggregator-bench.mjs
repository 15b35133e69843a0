// The aggregator's benchmarks: proxy overhead against direct calls and the public proxies,
// throughput with many sessions, search over a 10,000-tool registry, start-up with memory, and
// what the audit log costs a call.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchmarkAudit } from './aggregator-audit.mjs';
import { benchmarkCallCpu, CALL_CPU_WARMUP } from './aggregator-call-cpu.mjs';
import { benchmarkCliTimings } from './aggregator-cli-timings.mjs';
import { benchmarkOverhead } from './aggregator-overhead.mjs';
import { benchmarkSearch } from './aggregator-search.mjs';
import { benchmarkSharedState } from './aggregator-shared-state.mjs';
import { benchmarkStartup } from './aggregator-startup.mjs';
import { benchmarkThroughput } from './aggregator-throughput.mjs';

const AGGREGATOR_RUNS = {
  calls: 2000,
  warmup: 200,
  sessions: 50,
  callsPerSession: 60,
  tools: 10_000,
  builds: 5,
  searches: 2000,
  searchLimit: 5,
  startups: 10,
  cliRuns: 5,
  cpuCalls: 1000,
  cpuRounds: 5,
  auditRecords: 10_000,
  auditCalls: 2000,
  sharedStateCalls: 2000,
};

/** The shared state's part alone, for `run.mjs --only shared-state`. */
export function benchmarkAggregatorSharedState({ folder, log }) {
  mkdirSync(folder, { recursive: true });
  const runs = AGGREGATOR_RUNS;
  return benchmarkSharedState({ folder, calls: runs.sharedStateCalls, warmup: runs.warmup, log });
}

/** The audit log's part alone, for `run.mjs --only audit`. */
export function benchmarkAggregatorAudit({ folder, log }) {
  mkdirSync(folder, { recursive: true });
  const runs = AGGREGATOR_RUNS;
  return benchmarkAudit({
    folder,
    records: runs.auditRecords,
    calls: runs.auditCalls,
    warmup: runs.warmup,
    log,
  });
}

/** `toolmesh serve`'s start-up alone, for `run.mjs --only startup`. */
export async function benchmarkAggregatorStartup({ folder, log }) {
  const dataDir = path.join(folder, 'data');
  mkdirSync(dataDir, { recursive: true });
  return { startup: await benchmarkStartup({ folder, dataDir, runs: AGGREGATOR_RUNS.startups, log }) };
}

/** The proxy overhead alone, for `run.mjs --only overhead`. */
export async function benchmarkAggregatorOverhead({ folder, log }) {
  const dataDir = path.join(folder, 'data');
  mkdirSync(dataDir, { recursive: true });
  const { calls, warmup } = AGGREGATOR_RUNS;
  return { overhead: await benchmarkOverhead({ folder, dataDir, calls, warmup, log }) };
}

/** The search index at scale alone, for `run.mjs --only search`. */
export function benchmarkAggregatorSearch({ log }) {
  const { tools, builds, searches, searchLimit } = AGGREGATOR_RUNS;
  return { search: benchmarkSearch({ tools, builds, queries: searches, limit: searchLimit, log }) };
}

/** The one-shot CLI timings alone, for `run.mjs --only cli-timings`. */
export async function benchmarkAggregatorCli({ folder, log }) {
  const dataDir = path.join(folder, 'data');
  mkdirSync(dataDir, { recursive: true });
  return { cli: await benchmarkCliTimings({ folder, dataDir, runs: AGGREGATOR_RUNS.cliRuns, log }) };
}

export async function benchmarkAggregator({ base, log }) {
  const began = performance.now();
  const folder = path.join(base, 'aggregator');
  const dataDir = path.join(folder, 'data');
  mkdirSync(dataDir, { recursive: true });
  const runs = AGGREGATOR_RUNS;
  const overhead = await benchmarkOverhead({ folder, dataDir, calls: runs.calls, warmup: runs.warmup, log });
  const throughput = await benchmarkThroughput({
    folder,
    dataDir,
    sessions: runs.sessions,
    callsPerSession: runs.callsPerSession,
    log,
  });
  const callCpu = await benchmarkCallCpu({
    folder,
    dataDir,
    calls: runs.cpuCalls,
    rounds: runs.cpuRounds,
    warmup: CALL_CPU_WARMUP,
    log,
  });
  const search = benchmarkSearch({
    tools: runs.tools,
    builds: runs.builds,
    queries: runs.searches,
    limit: runs.searchLimit,
    log,
  });
  const startup = await benchmarkStartup({ folder, dataDir, runs: runs.startups, log });
  const cli = await benchmarkCliTimings({ folder, dataDir, runs: runs.cliRuns, log });
  const audit = await benchmarkAggregatorAudit({ folder: path.join(folder, 'audit'), log });
  const sharedState = await benchmarkAggregatorSharedState({
    folder: path.join(folder, 'shared-state'),
    log,
  });
  return {
    overhead,
    callCpu,
    throughput,
    search,
    startup,
    cli,
    audit,
    sharedState,
    totalMs: performance.now() - began,
  };
}
