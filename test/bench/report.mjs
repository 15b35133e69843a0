// Renders the figures of a bench run as docs/benchmarks.md: the machine, then one section per package.
import { renderAggregatorSection } from './aggregator-report.mjs';
import { renderFsSection } from './fs-report.mjs';
import { count, table } from './markdown.mjs';

function warningsSection(warnings) {
  if (warnings.length === 0) return '';
  return `
## Warnings in the bench process

Node warnings raised in the bench's own process (where the SDK clients run), each kind counted over the run:

${table(
  ['Warning', 'Times', 'First message'],
  warnings.map((w) => [w.kind, count(w.count), w.message]),
)}
`;
}

/** The page: the machine, the fs server, the aggregator, then each server's rendered section in order. */
export function renderReport({ facts, fs, aggregator, sections, warnings, totalMs }) {
  return `# Benchmarks

Figures for the aggregator (\`toolmesh\`) and the fs, code-graph, git, tickets, memory and feeds servers, written by \`pnpm bench\` — run that
command at the repo root to reproduce them on your machine (it builds, then runs \`node test/bench/run.mjs\`;
about ${Math.ceil(totalMs / 1000)} s here). This page is generated: edit test/bench/ rather than this file.

## Machine

${table(
  ['Fact', 'Value'],
  [
    ['Date', facts.date],
    ['Node', facts.node],
    ['OS', facts.platform],
    ['CPU', `${facts.cpu}, ${facts.cores} cores`],
    ['Memory', facts.memory],
    ['Load average (1 min) at start', facts.load],
    ['grep', `${facts.grep} (locale ${facts.locale})`],
  ],
)}

${renderFsSection(fs)}
${renderAggregatorSection(aggregator, { fsColdStart: fs.coldStart })}
${sections.join('\n')}${warningsSection(warnings)}`;
}
