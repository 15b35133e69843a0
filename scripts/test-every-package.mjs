// `pnpm test`'s runner: every package's suite runs even when one fails (turbo's --continue), one
// at a time, and the end says which passed and which failed; the exit status is 1 if any failed.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const runs = path.resolve('.turbo/runs');
const before = new Set(existsSync(runs) ? readdirSync(runs) : []);
const turbo = spawnSync(
  'turbo',
  ['run', 'test', '--concurrency=1', '--continue', '--summarize', ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
const summaryFile = (existsSync(runs) ? readdirSync(runs) : []).find((name) => !before.has(name));
if (!summaryFile) {
  const why = turbo.error ? `${turbo.error.message}; run it as pnpm test` : `exit ${turbo.status}`;
  process.stderr.write(`test-every-package: turbo wrote no run summary (${why})\n`);
  process.exit(turbo.status || 1);
}
const { tasks } = JSON.parse(readFileSync(path.join(runs, summaryFile), 'utf8'));
const seconds = ({ startTime, endTime }) => `${((endTime - startTime) / 1000).toFixed(1)} s`;
const lines = [];
let failed = 0;
for (const task of tasks) {
  const code = task.execution?.exitCode;
  if (task.task !== 'test' && (code === 0 || code === undefined || code === null)) continue;
  if (code === 0) lines.push(`  passed   ${task.package} (${seconds(task.execution)})`);
  else if (code === undefined || code === null) {
    failed++;
    lines.push(`  NOT RUN  ${task.package}: a task it depends on failed`);
  } else {
    failed++;
    lines.push(`  FAILED   ${task.taskId} (exit ${code}, ${seconds(task.execution)})`);
  }
}
// The last line in the plain form CI reads as a closing count: package suites, not single tests.
process.stdout.write(
  `\nTest summary: ${failed === 0 ? 'every suite passed' : `${failed} failed`}\n${lines.join('\n')}\nsuites: ${lines.length - failed} passed, ${failed} failed\n`,
);
process.exit(failed === 0 && turbo.status === 0 ? 0 : 1);
