// The aggregator's benchmarks: proxy overhead against direct calls and the public proxies,
// throughput with many sessions, search over a 10,000-tool registry, and start-up with memory.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchmarkOverhead } from './aggregator-overhead.mjs';
import { benchmarkSearch } from './aggregator-search.mjs';
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
};

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
  const search = benchmarkSearch({
    tools: runs.tools,
    builds: runs.builds,
    queries: runs.searches,
    limit: runs.searchLimit,
    log,
  });
  const startup = await benchmarkStartup({ folder, dataDir, runs: runs.startups, log });
  return { overhead, throughput, search, startup, totalMs: performance.now() - began };
}
