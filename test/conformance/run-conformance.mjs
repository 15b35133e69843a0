#!/usr/bin/env node
// Runs the official MCP conformance server suite against the built toolmesh-fs over Streamable
// HTTP, and compares every scenario with expected-failures.json: a scenario missing from that
// list must pass, and a listed one must still fail. Exits 1 on any other outcome. Builds
// nothing: run `pnpm build` first, or `pnpm conformance`.
//   --write-docs   also writes its section of docs/conformance.md from the results
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cell, TOP as top, writeDocSection } from './doc-section.mjs';
import { classify, isUnexpected, printReport, tally } from './expected-failures.mjs';
import { runSuite, SUITE_VERSION, suiteArgs } from './run-suite.mjs';
import { runMain } from './script-main.mjs';
import { startServer, stopServer } from './server-process.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const FS_BIN = path.join(top, 'servers/fs/dist/index.js');
const EXPECTED_FAILURES = path.join(here, 'expected-failures.json');
const writeDocs = process.argv.includes('--write-docs');

function renderDocs(rows) {
  const table = rows.map((row) => `| ${row.scenario} | ${row.outcome} | ${cell(row.reason ?? row.detail)} |`);
  return `## toolmesh-fs

Every server scenario runs (\`--suite all\`, so active and pending ones) over Streamable HTTP on
127.0.0.1, against toolmesh-fs rooted at an empty temporary folder.

- Date: ${new Date().toISOString().slice(0, 10)}
- Suite: @modelcontextprotocol/conformance ${SUITE_VERSION}, Node ${process.version}
- Result: ${tally(rows)}
- Reproduce: \`pnpm conformance\` (builds, then runs \`node test/conformance/run-conformance.mjs --write-docs\`)
- Suite command the script runs: \`conformance ${suiteArgs('<url>', '<temp dir>').join(' ')}\`

A scenario passes when it records at least one successful check and no failure or warning.
Expected failures are scenarios written against the suite's own fixtures: tools such as
\`test_simple_text\`, resources under \`test://\`, prompts, and completion of a fixture prompt.
toolmesh-fs serves file tools only, so it cannot pass them. Their reasons are kept in
\`test/conformance/expected-failures.json\`. \`pnpm test\` runs the same comparison and fails when
any other scenario fails, or when an expected failure starts to pass.

| Scenario | Result | Reason or detail |
| --- | --- | --- |
${table.join('\n')}
`;
}

async function main() {
  if (!existsSync(FS_BIN)) throw new Error(`${FS_BIN} is missing: run pnpm build first`);
  const base = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-conformance-'));
  const [root, dataDir, outputDir] = ['root', 'data', 'results'].map((name) => path.join(base, name));
  for (const dir of [root, dataDir, outputDir]) mkdirSync(dir);

  const server = startServer(
    'toolmesh-fs',
    [FS_BIN, '--root', root, '--transport', 'http', '--host', '127.0.0.1', '--port', '0'],
    // Checkpoints go to the temp folder, not the user's data directory.
    { TOOLMESH_DATA_DIR: dataDir },
  );
  let rows;
  try {
    rows = classify(await runSuite(await server.url, outputDir), EXPECTED_FAILURES);
  } finally {
    await stopServer(server.child);
  }

  printReport(rows, EXPECTED_FAILURES);
  process.stdout.write(`\n${tally(rows)} (suite ${SUITE_VERSION})\n`);
  if (writeDocs) {
    process.stdout.write(`wrote ${writeDocSection('toolmesh-fs', renderDocs(rows))}\n`);
  }
  if (rows.some(isUnexpected)) {
    process.stdout.write(`suite results kept in ${outputDir}\n`);
    return 1;
  }
  rmSync(base, { recursive: true, force: true });
  return 0;
}

runMain('run-conformance', main);
