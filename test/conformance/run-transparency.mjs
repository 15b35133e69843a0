#!/usr/bin/env node
// Proxy transparency: runs the official MCP conformance server suite against the conformance
// fixture directly, then through `toolmesh serve --transport http` with the fixture as a remote
// upstream that keeps its own names (`prefix: false`), and compares scenario by scenario. The
// direct run is held to fixture-expected-failures.json; then every scenario that passes directly
// must pass through toolmesh, the sampling and elicitation ones included, since they need
// server → client requests relayed. Exits 1 otherwise. Builds nothing: run `pnpm build` first.
//   --write-docs   also writes its section of docs/conformance.md from the results
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cell, writeDocSection } from './doc-section.mjs';
import { classify, isUnexpected, printReport, tally } from './expected-failures.mjs';
import { runSuite, SUITE_VERSION, suiteArgs } from './run-suite.mjs';
import { runMain } from './script-main.mjs';
import { stopServer } from './server-process.mjs';
import { AGGREGATOR_BIN, startFixture, startToolmeshOver, UPSTREAM } from './toolmesh-over-fixture.mjs';

const FIXTURE_EXPECTED_FAILURES = fileURLToPath(new URL('./fixture-expected-failures.json', import.meta.url));
/** Scenarios that need a server → client request relayed: the point of the comparison. */
const RELAYED = [
  'tools-call-sampling',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
];
const writeDocs = process.argv.includes('--write-docs');

/** Pairs the two runs by scenario; `lost` means it passes directly but not through toolmesh. */
function compare(direct, proxied) {
  const proxiedByScenario = new Map(proxied.map((result) => [result.scenario, result]));
  return direct.map((row) => {
    const through = proxiedByScenario.get(row.scenario) ?? {
      passed: false,
      detail: 'not run through toolmesh',
    };
    const verdict = row.passed === through.passed ? 'same' : row.passed ? 'lost' : 'gained';
    return { scenario: row.scenario, direct: row, through, verdict };
  });
}

function problems(directRows, pairs) {
  const found = directRows
    .filter(isUnexpected)
    .map((row) => `directly, ${row.scenario}: ${row.outcome} (${row.detail})`);
  for (const pair of pairs.filter((pair) => pair.verdict === 'lost'))
    found.push(`${pair.scenario} passes directly but not through toolmesh: ${pair.through.detail}`);
  for (const scenario of RELAYED) {
    const pair = pairs.find((candidate) => candidate.scenario === scenario);
    if (!pair?.through.passed) found.push(`${scenario} must pass through toolmesh: it relays the request`);
  }
  return found;
}

const mark = (result) => (result.passed ? 'pass' : 'fail');

function printComparison(pairs) {
  process.stdout.write('\ndirect → through toolmesh\n');
  for (const pair of pairs) {
    const line = `${pair.verdict === 'same' ? ' ' : '!'} ${pair.scenario}: ${mark(pair.direct)} → ${mark(pair.through)}`;
    process.stdout.write(pair.verdict === 'same' ? `${line}\n` : `${line}\n    ${pair.through.detail}\n`);
  }
}

function summary(pairs) {
  const count = (test) => pairs.filter(test).length;
  return `${count((pair) => pair.direct.passed)} of ${pairs.length} pass directly, ${count((pair) => pair.through.passed)} through toolmesh; ${count((pair) => pair.verdict === 'lost')} lost, ${count((pair) => pair.verdict === 'gained')} gained`;
}

function renderDocs(directRows, pairs) {
  const note = (pair) => {
    if (pair.verdict === 'same' && pair.direct.passed) return '';
    const through = `${pair.verdict === 'same' ? 'Through toolmesh' : `${pair.verdict} through toolmesh`}: ${pair.through.detail}`;
    return pair.direct.passed ? through : `Directly: ${pair.direct.reason ?? pair.direct.detail} ${through}`;
  };
  const table = pairs.map(
    (pair) => `| ${pair.scenario} | ${mark(pair.direct)} | ${mark(pair.through)} | ${cell(note(pair))} |`,
  );
  return `## Proxy transparency: the fixture directly and through toolmesh

\`test/conformance/fixture-server.mjs\` is a plain SDK server that implements every tool, resource,
resource template, prompt and completion the server scenarios ask for, under the names they call.
The suite runs against it twice over Streamable HTTP on 127.0.0.1: directly, and through
\`toolmesh serve --transport http\` with the fixture as a remote upstream
(\`{"mcpServers": {"${UPSTREAM}": {"url": "<fixture url>", "prefix": false}}, "auth": {"required": false}}\`:
the suite's client sends no bearer token).

- Date: ${new Date().toISOString().slice(0, 10)}
- Suite: @modelcontextprotocol/conformance ${SUITE_VERSION}, Node ${process.version}
- Result: ${summary(pairs)}; directly against the fixture's own list, ${tally(directRows)}
- Reproduce: \`pnpm conformance\` (builds, then also runs \`node test/conformance/run-transparency.mjs --write-docs\`)
- Suite command the script runs, once per URL: \`conformance ${suiteArgs('<url>', '<temp dir>').join(' ')}\`

Why \`prefix: false\`: toolmesh exposes a tool as \`<server>__<name>\`, and most scenarios call
fixed names (\`test_simple_text\`, \`test_prompt_with_arguments\`…), so through a renaming proxy
they would fail for the name alone. A server configured with \`prefix: false\` keeps its own tool
and prompt names, as a user pointing a client at toolmesh with one server may want; a name that
another tool already has falls back to \`<server>__<name>\`. Resources keep their URIs anyway.

The test passes when every scenario that passes directly also passes through toolmesh (\`lost\`
below would fail it), including the sampling and elicitation ones, which need toolmesh to relay
the fixture's requests to the client that made the call. The fixture's own failures are listed,
with their reasons, in \`test/conformance/fixture-expected-failures.json\`. \`pnpm test\` runs this
comparison in \`test/conformance/transparency.test.ts\`.

| Scenario | Direct | Through toolmesh | Note |
| --- | --- | --- | --- |
${table.join('\n')}
`;
}

async function main() {
  if (!existsSync(AGGREGATOR_BIN)) throw new Error(`${AGGREGATOR_BIN} is missing: run pnpm build first`);
  const base = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-transparency-'));
  const [directDir, proxiedDir] = ['direct', 'through-toolmesh'].map((name) => path.join(base, name));
  for (const dir of [directDir, proxiedDir]) mkdirSync(dir);

  const fixture = startFixture();
  let aggregator;
  let directRows;
  let pairs;
  try {
    const fixtureUrl = await fixture.url;
    directRows = classify(await runSuite(fixtureUrl, directDir), FIXTURE_EXPECTED_FAILURES);
    aggregator = startToolmeshOver(fixtureUrl, base);
    const proxied = await runSuite(await aggregator.url, proxiedDir);
    pairs = compare(
      directRows.filter((row) => row.outcome !== 'not run'),
      proxied,
    );
  } finally {
    if (aggregator) await stopServer(aggregator.child);
    await stopServer(fixture.child);
  }

  process.stdout.write('directly against the fixture\n');
  printReport(directRows, FIXTURE_EXPECTED_FAILURES);
  printComparison(pairs);
  process.stdout.write(`\n${summary(pairs)} (suite ${SUITE_VERSION})\n`);
  if (writeDocs)
    process.stdout.write(`wrote ${writeDocSection('proxy transparency', renderDocs(directRows, pairs))}\n`);
  const found = problems(directRows, pairs);
  if (found.length > 0) {
    process.stdout.write(`\n${found.join('\n')}\nsuite results kept in ${base}\n`);
    return 1;
  }
  rmSync(base, { recursive: true, force: true });
  return 0;
}

runMain('run-transparency', main);
