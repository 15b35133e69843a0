// Holds a conformance run to its list of expected failures (a JSON map of scenario → why it
// cannot pass): a scenario missing from the list must pass, and a listed one must still fail,
// so the list cannot quietly go stale.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TOP } from './doc-section.mjs';

/** A bare name is not enough: each listed scenario needs its reason. */
function readExpectedFailures(file) {
  const expected = JSON.parse(readFileSync(file, 'utf8'));
  for (const [scenario, reason] of Object.entries(expected)) {
    if (typeof reason !== 'string' || reason.trim() === '') {
      throw new Error(`${path.relative(TOP, file)}: give ${scenario} a reason why it cannot pass`);
    }
  }
  return expected;
}

/** Each result of `runSuite` with its `outcome` against the list in `file`, and its `reason`. */
export function classify(results, file) {
  const expected = readExpectedFailures(file);
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

export const isUnexpected = (row) => ['FAIL', 'unexpected pass', 'not run'].includes(row.outcome);

export function printReport(rows, file) {
  const marks = { pass: '✓', 'expected failure': '~', FAIL: '✗', 'unexpected pass': '!', 'not run': '?' };
  for (const row of rows) {
    const line = `${marks[row.outcome]} ${row.scenario}: ${row.outcome}`;
    process.stdout.write(isUnexpected(row) ? `${line}\n    ${row.detail}\n` : `${line}\n`);
  }
  for (const row of rows.filter((row) => row.outcome === 'unexpected pass')) {
    process.stdout.write(`${row.scenario} passes now: remove it from ${path.relative(TOP, file)}\n`);
  }
}

export function tally(rows) {
  const count = (outcome) => rows.filter((row) => row.outcome === outcome).length;
  const unexpected = rows.filter(isUnexpected).length;
  return `${count('pass')} passed, ${count('expected failure')} expected failures, ${unexpected} unexpected`;
}
