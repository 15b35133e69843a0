#!/usr/bin/env node
// Runs the official MCP conformance server suite against the built toolmesh-fs over Streamable
// HTTP, and compares every scenario with expected-failures.json: a scenario missing from that
// list must pass, and a listed one must still fail, so the list cannot quietly go stale. Exits 1
// on any other outcome. Builds nothing: run `pnpm build` first, or `pnpm conformance`.
//   --write-docs   also writes docs/conformance.md from the results
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const top = path.resolve(here, '../..');
const FS_BIN = path.join(top, 'servers/fs/dist/index.js');
const SUITE_PACKAGE = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/conformance/package.json',
);
const SUITE_BIN = path.join(path.dirname(SUITE_PACKAGE), 'dist/index.js');
const SUITE_VERSION = JSON.parse(readFileSync(SUITE_PACKAGE, 'utf8')).version;
const EXPECTED_FAILURES = path.join(here, 'expected-failures.json');
const DOCS = path.join(top, 'docs/conformance.md');
const SUITE_TIMEOUT_MS = 150_000;
const writeDocs = process.argv.includes('--write-docs');

/** Every child this script starts, so none outlives it: not on an error, not on a signal. */
const children = new Set();
function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(1));

/** Starts toolmesh-fs on a free loopback port; `url` resolves once it logs where it listens. */
function startServer(root, dataDir) {
  const child = track(
    spawn(
      process.execPath,
      [FS_BIN, '--root', root, '--transport', 'http', '--host', '127.0.0.1', '--port', '0'],
      // Checkpoints go to the temp folder, not the user's data directory.
      { env: { ...process.env, TOOLMESH_DATA_DIR: dataDir }, stdio: ['ignore', 'ignore', 'pipe'] },
    ),
  );
  let log = '';
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`toolmesh-fs did not listen within 15 s:\n${log}`)),
      15_000,
    );
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      log = (log + chunk).slice(-20_000);
      const listening = /listening on (http:\/\/\S+\/mcp)/.exec(log);
      if (listening) {
        clearTimeout(timer);
        resolve(listening[1]);
      }
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`toolmesh-fs exited (${signal ?? code}) before listening:\n${log}`));
    });
  });
  return { child, url };
}

function isRunning(child) {
  return child.exitCode === null && child.signalCode === null;
}

/** SIGTERM lets the server close its sessions; SIGKILL follows if it is still there after 3 s. */
async function stopServer(child) {
  if (!isRunning(child)) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

function suiteArgs(url, outputDir) {
  return ['server', '--url', url, '--suite', 'all', '--output-dir', outputDir];
}

/** The suite's own exit code only says "something failed", so results are read from --output-dir. */
function runSuite(url, outputDir) {
  const args = suiteArgs(url, outputDir);
  process.stderr.write(`conformance ${args.join(' ')}\n`);
  return new Promise((resolve, reject) => {
    const child = track(spawn(process.execPath, [SUITE_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }));
    let output = '';
    const collect = (chunk) => {
      output += chunk;
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, SUITE_TIMEOUT_MS);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      // 0: all passed, 1: some scenario failed; anything else means the suite itself broke.
      if (code === 0 || code === 1) resolve(output);
      else if (timedOut)
        reject(new Error(`the conformance suite took over ${SUITE_TIMEOUT_MS / 1000} s:\n${output}`));
      else reject(new Error(`the conformance suite stopped (${signal ?? code}):\n${output}`));
    });
  });
}

/** Every scenario the suite ran, with its checks; a scenario that crashed has none on disk. */
function readResults(output, outputDir) {
  const checksByScenario = new Map();
  for (const entry of readdirSync(outputDir)) {
    // server-<scenario>-<ISO timestamp with ':' and '.' turned into '-'>
    const scenario = entry.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    checksByScenario.set(
      scenario,
      JSON.parse(readFileSync(path.join(outputDir, entry, 'checks.json'), 'utf8')),
    );
  }
  const ran = [...output.matchAll(/=== Running scenario: (\S+) ===/g)].map((match) => match[1]);
  return ran.map((scenario) => ({ scenario, ...judge(checksByScenario.get(scenario)) }));
}

/**
 * Stricter than the suite's summary: like its baseline mode a WARNING fails (SHOULDs count), and
 * a scenario must record at least one SUCCESS, since INFO checks alone prove nothing.
 */
function judge(checks) {
  if (!checks)
    return { passed: false, detail: 'no checks.json: the scenario crashed (see the suite output)' };
  const problems = checks
    .filter((check) => check.status === 'FAILURE' || check.status === 'WARNING')
    .map((check) => `${check.status} ${check.name}: ${check.errorMessage ?? check.description}`);
  const successes = checks.filter((check) => check.status === 'SUCCESS').length;
  if (problems.length === 0 && successes > 0)
    return { passed: true, detail: `${successes} check${successes === 1 ? '' : 's'} passed` };
  return { passed: false, detail: problems.join('; ') || 'no check succeeded' };
}

/** expected-failures.json maps each scenario to why toolmesh-fs cannot pass it; a bare name is not enough. */
function readExpectedFailures() {
  const expected = JSON.parse(readFileSync(EXPECTED_FAILURES, 'utf8'));
  for (const [scenario, reason] of Object.entries(expected)) {
    if (typeof reason !== 'string' || reason.trim() === '') {
      throw new Error(
        `${path.relative(top, EXPECTED_FAILURES)}: give ${scenario} a reason why it cannot pass`,
      );
    }
  }
  return expected;
}

function classify(results, expected) {
  const rows = results.map((result) => {
    const reason = expected[result.scenario];
    if (result.passed) return { ...result, outcome: reason ? 'unexpected pass' : 'pass', reason };
    return { ...result, outcome: reason ? 'expected failure' : 'FAIL', reason };
  });
  const ran = new Set(results.map((result) => result.scenario));
  for (const scenario of Object.keys(expected)) {
    if (!ran.has(scenario))
      rows.push({
        scenario,
        outcome: 'not run',
        detail: 'listed as expected but the suite has no such scenario',
      });
  }
  return rows;
}

const isUnexpected = (row) => ['FAIL', 'unexpected pass', 'not run'].includes(row.outcome);

function printReport(rows) {
  const marks = { pass: '✓', 'expected failure': '~', FAIL: '✗', 'unexpected pass': '!', 'not run': '?' };
  for (const row of rows) {
    const line = `${marks[row.outcome]} ${row.scenario}: ${row.outcome}`;
    process.stdout.write(isUnexpected(row) ? `${line}\n    ${row.detail}\n` : `${line}\n`);
  }
  for (const row of rows.filter((row) => row.outcome === 'unexpected pass')) {
    process.stdout.write(
      `${row.scenario} passes now: remove it from ${path.relative(top, EXPECTED_FAILURES)}\n`,
    );
  }
}

function tally(rows) {
  const count = (outcome) => rows.filter((row) => row.outcome === outcome).length;
  const unexpected = rows.filter(isUnexpected).length;
  return `${count('pass')} passed, ${count('expected failure')} expected failures, ${unexpected} unexpected`;
}

function renderDocs(rows) {
  const cell = (text) => String(text ?? '').replace(/\|/g, '\\|');
  const table = rows.map((row) => `| ${row.scenario} | ${row.outcome} | ${cell(row.reason ?? row.detail)} |`);
  return `# MCP conformance

toolmesh-fs is checked against the official MCP conformance suite,
[@modelcontextprotocol/conformance](https://github.com/modelcontextprotocol/conformance) ${SUITE_VERSION}.
Every server scenario runs (\`--suite all\`, so active and pending ones) over Streamable HTTP on
127.0.0.1, against a server rooted at an empty temporary folder.

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
  const expected = readExpectedFailures();
  const base = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-conformance-'));
  const [root, dataDir, outputDir] = ['root', 'data', 'results'].map((name) => path.join(base, name));
  for (const dir of [root, dataDir, outputDir]) mkdirSync(dir);

  const server = startServer(root, dataDir);
  let rows;
  try {
    const output = await runSuite(await server.url, outputDir);
    rows = classify(readResults(output, outputDir), expected);
  } finally {
    await stopServer(server.child);
  }

  printReport(rows);
  process.stdout.write(`\n${tally(rows)} (suite ${SUITE_VERSION})\n`);
  if (writeDocs) {
    writeFileSync(DOCS, renderDocs(rows));
    process.stdout.write(`wrote ${path.relative(top, DOCS)}\n`);
  }
  if (rows.some(isUnexpected)) {
    process.stdout.write(`suite results kept in ${outputDir}\n`);
    return 1;
  }
  rmSync(base, { recursive: true, force: true });
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`run-conformance: ${error.message}\n`);
    process.exitCode = 1;
  },
);
