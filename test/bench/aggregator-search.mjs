// search_tool_bm25's index at scale: building a ToolIndex of 10,000 tools and querying it, in
// process, with the index the aggregator's package exports (the code behind search_tool_bm25).
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { ToolIndex } from '@toolmesh/aggregator';
import { check } from './check.mjs';
import { summarize } from './stats.mjs';
import { realQueries, synthesizeTools } from './tool-catalog.mjs';

function build(tools) {
  const index = new ToolIndex();
  for (const tool of tools) index.upsert(tool);
  return index;
}

export function benchmarkSearch({ tools: count, builds, queries: queryCount, limit, log }) {
  const tools = synthesizeTools(count);
  const servers = new Set(tools.map((tool) => tool.server)).size;
  log(`bench: ToolIndex of ${count} tools from ${servers} servers, ${builds} builds`);
  build(tools);
  const buildTimes = [];
  let index;
  for (let run = 0; run < builds; run++) {
    const start = performance.now();
    index = build(tools);
    buildTimes.push(performance.now() - start);
  }
  check(index.size === count, `the index holds ${index.size} of ${count} tools`);

  const queries = realQueries();
  log(`bench: ${queryCount} searches (the ${queries.length} real requests in turn), limit ${limit}`);
  for (const query of queries) index.search(query, limit);
  const queryTimes = [];
  let empty = 0;
  for (let i = 0; i < queryCount; i++) {
    const start = performance.now();
    const hits = index.search(queries[i % queries.length], limit);
    queryTimes.push(performance.now() - start);
    if (hits.length === 0) empty++;
  }
  return {
    tools: count,
    servers,
    limit,
    distinctQueries: queries.length,
    build: summarize(buildTimes),
    query: summarize(queryTimes),
    empty,
  };
}

// `node test/bench/aggregator-search.mjs`: this part alone, printed, without `pnpm bench`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = benchmarkSearch({ tools: 10_000, builds: 5, queries: 2000, limit: 5, log: console.error });
  const line = ({ median, p95, min, max }) =>
    `median ${median.toFixed(3)} ms, p95 ${p95.toFixed(3)}, min ${min.toFixed(3)}, max ${max.toFixed(3)}`;
  console.log(`build of ${result.tools} tools: ${line(result.build)}`);
  console.log(`search (limit ${result.limit}): ${line(result.query)}; ${result.empty} with no hits`);
}
