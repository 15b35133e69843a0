// Renders code-graph's part of docs/benchmarks.md.
import { count, table } from './markdown.mjs';
import { mib, ms } from './stats.mjs';

const TARGETS = {
  syntacticShare: 0.5,
  preciseShare: 3,
  saveP95: 300,
  searchP50: 5,
  callersP50: 2,
  impactP50: 20,
};

const verdict = (met) => (met ? 'met' : '**not met**');
const times = (value) => `${value.toFixed(2)}×`;
const perSecond = (amount, milliseconds) => count(Math.round(amount / (milliseconds / 1000)));

function fullIndexRows(result) {
  const { corpus, fullIndex, peer } = result;
  const row = (tool, mode, run) => [
    tool,
    mode,
    `**${ms(run.median)}**`,
    `${ms(run.min)} – ${ms(run.max)}`,
    perSecond(corpus.files, run.median),
    perSecond(corpus.lines, run.median),
    mib(run.peakTreeKiB),
    run.edges === undefined ? '—' : count(run.edges),
    run.indexMs === undefined
      ? '—'
      : `${ms(run.indexMs)} syntactic${run.preciseMs === undefined ? '' : ` + ${ms(run.preciseMs)} checker`}`,
  ];
  return [
    row('**code-graph**', 'tree-sitter (`--no-precise`)', fullIndex.syntactic),
    ...(fullIndex.precise ? [row('**code-graph**', 'precise (default)', fullIndex.precise)] : []),
    row(`**${peer.name} ${peer.version}**`, '`codegraph index`', fullIndex.codegraph),
  ];
}

function fullIndexVerdicts(result) {
  const { fullIndex, peer } = result;
  const peerMs = fullIndex.codegraph.median;
  const syntactic = fullIndex.syntactic.median / peerMs;
  const lines = [
    `- **Syntactic index:** ${ms(fullIndex.syntactic.median)} against ${peer.name}'s ${ms(peerMs)}: **${times(syntactic)}** its wall time (target at most ${TARGETS.syntacticShare}×: ${verdict(syntactic <= TARGETS.syntacticShare)}).`,
  ];
  if (fullIndex.precise) {
    const precise = fullIndex.precise.median / peerMs;
    lines.push(
      `- **With the precise upgrade finished:** ${ms(fullIndex.precise.median)}: **${times(precise)}** ${peer.name}'s wall time (target at most ${TARGETS.preciseShare}×: ${verdict(precise <= TARGETS.preciseShare)}).`,
    );
  } else {
    lines.push(
      '- **Precise upgrade:** not in this build (the server has no `--no-precise`), so not measured; the bench measures it as soon as the build has it.',
    );
  }
  lines.push(
    `- **Peak memory:** code-graph ${mib(fullIndex.syntactic.peakTreeKiB)} syntactic${fullIndex.precise ? `, ${mib(fullIndex.precise.peakTreeKiB)} with the checker` : ''}; ${peer.name} ${mib(fullIndex.codegraph.peakTreeKiB)}.`,
  );
  return lines.join('\n');
}

function saveRows({ incremental, peer }) {
  const row = (tool, stats) => [
    tool,
    String(stats.runs),
    `**${ms(stats.median)}**`,
    `**${ms(stats.p95)}**`,
    `${ms(stats.min)} – ${ms(stats.max)}`,
  ];
  return [
    ...incremental.codeGraph.map((stats) => row(`**code-graph** (${stats.mode} mode)`, stats)),
    row(`**${peer.name} ${peer.version}**`, incremental.codegraph),
  ];
}

function queryRows({ queries }) {
  const cell = (stats) => (stats ? `**${ms(stats.median)}** (p95 ${ms(stats.p95)})` : '—');
  const row = (name, ours, theirs, target, peerTool) => [
    name,
    cell(ours),
    ours ? `under ${target} ms: ${verdict(ours.median < target)}` : 'tool not in this build',
    `\`${peerTool}\` ${cell(theirs)}`,
  ];
  return [
    row(
      '`search_code`',
      queries.codeGraph.search,
      queries.codegraph.search,
      TARGETS.searchP50,
      'codegraph_search',
    ),
    row(
      '`code_callers`',
      queries.codeGraph.callers,
      queries.codegraph.callers,
      TARGETS.callersP50,
      'codegraph_callers',
    ),
    row(
      '`code_impact` depth 3',
      queries.codeGraph.impact,
      queries.codegraph.impact,
      TARGETS.impactP50,
      'codegraph_impact',
    ),
  ];
}

export function renderCodeGraphSection(result) {
  const { corpus, peer, runs, incremental } = result;
  return `## code-graph server

The built \`servers/code-graph/dist/index.js\` and ${peer.name} ${peer.version} (npm) on the same files, in one run
(started ${result.startedAt.date} with a 1-minute load average of ${result.startedAt.load}; this part took ${Math.ceil(result.totalMs / 1000)} s). Reproduce this section alone, after \`pnpm build\`:
\`node test/bench/run.mjs --only code-graph\` (it rewrites only this section). How right its answers are is measured
apart, in [code-graph-correctness.md](code-graph-correctness.md).

### Data

zod ${corpus.version}'s \`src/\` from npm (${count(corpus.files)} TypeScript files, ${count(corpus.lines)} lines) with its package.json and a tsconfig.json
like zod's own (test/bench/code-graph-corpus.mjs), copied twice into a temporary folder: one copy per tool, so
that neither sees the other's files (codegraph keeps its index in \`<project>/.codegraph/\`; code-graph's database
is in the temporary data directory). codegraph runs offline: its bundled runtime started directly
(\`bin/codegraph\` of \`${peer.name}-${process.platform}-${process.arch}\`, which the npm shim would exec), with \`DO_NOT_TRACK=1\`
(no telemetry, no update check), \`CODEGRAPH_NO_DAEMON=1\` (in process, no background daemon) and a temporary \`HOME\`.

### Full index against codegraph

Wall time from spawning the process to a complete graph, ${runs.index} runs each after one unmeasured, interleaved
run by run. **code-graph**: a fresh database each run, \`toolmesh-code-graph --root <copy> --db <new file> --watch off\`
spawned over stdio with the real SDK client, until \`index_status\` reports the index complete (and, for the precise
mode, the checker's upgrade done); **codegraph**: \`codegraph index <copy>\` (a full rebuild from scratch, "same result
as a fresh init") until it exits. Files/s and lines/s are over the median wall time. Peak memory is the highest
sum of VmRSS over the process and its children, sampled every 20 ms (codegraph re-launches itself in a child
process; code-graph's parse workers and its checker are child processes of its own, and the two checkers of an opt-in \`--precise-workers 2\` split are threads). *Own timing* is what code-graph's index_status
reports for the indexing itself, without process start.

${table(
  ['Tool', 'Mode', 'Wall, median', 'Range', 'Files/s', 'Lines/s', 'Peak RSS', 'Edges', 'Own timing (median)'],
  fullIndexRows(result),
)}

${fullIndexVerdicts(result)}

### From a save to the updated answer

Each tool's server runs with its file watcher on its copy (code-graph's default \`--watch events\`; codegraph's
default watcher). Each save rewrites \`${incremental.edit.file}\` with a new function at its end, one line further
down each time, calling \`util.${incremental.edit.target}\`; the time is from the write to the first answer of
\`code_callers ${incremental.edit.target}\` (codegraph: \`codegraph_callers\`, same symbol and file) that lists the new
function, asking again as soon as each answer arrives (one call takes a few milliseconds). Between saves each
server settles (code-graph: \`index_status\` idle; codegraph: 1 s).

${table(['Tool', 'Saves', 'Median', 'p95', 'Range'], saveRows(result))}

${incremental.codeGraph
  .map(
    (stats) =>
      `- **code-graph, ${stats.mode} mode: p95 ${ms(stats.p95)}** (target under ${TARGETS.saveP95} ms: ${verdict(stats.p95 < TARGETS.saveP95)}).`,
  )
  .join('\n')}
- ${peer.name}'s watcher: p95 ${ms(incremental.codegraph.p95)}, median ${ms(incremental.codegraph.median)}.

### Query latency

Wall time of the SDK client's call over stdio on the fully indexed copy, ${runs.queries} calls each after ${runs.warmup}
unmeasured; the median with the 95th percentile. \`search_code\` cycles through ${result.queries.searches.length} queries
(${result.queries.searches.map((query) => `"${query}"`).join(', ')}); \`code_callers\` and \`code_impact\` (depth 3) through
${result.queries.symbols.length} well-used symbols (${result.queries.symbols.map((entry) => `\`${entry.symbol}\``).join(', ')}), each named with its file, at the default
output budget. codegraph gets the same queries through its own tools (its answers are text; what each tool
returns differs, so its column is context, not a like-for-like race). code-graph's resident memory once indexed:
${mib(result.queries.codeGraph.memory.rssKiB)} (VmRSS).

${table(['Query', 'code-graph p50', 'Target (issue 6)', 'codegraph p50'], queryRows(result))}
`;
}
