// Runs the official MCP conformance server suite against one URL and judges each scenario.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { track } from './server-process.mjs';

const SUITE_PACKAGE = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/conformance/package.json',
);
const SUITE_BIN = path.join(path.dirname(SUITE_PACKAGE), 'dist/index.js');
export const SUITE_VERSION = JSON.parse(readFileSync(SUITE_PACKAGE, 'utf8')).version;
const SUITE_TIMEOUT_MS = 150_000;

export function suiteArgs(url, outputDir) {
  return ['server', '--url', url, '--suite', 'all', '--output-dir', outputDir];
}

/** The suite's own exit code only says "something failed", so results are read from --output-dir. */
function runSuiteProcess(url, outputDir) {
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

/** Runs every server scenario against `url`; each result is `{ scenario, passed, detail }`. */
export async function runSuite(url, outputDir) {
  const output = await runSuiteProcess(url, outputDir);
  return readResults(output, outputDir);
}
