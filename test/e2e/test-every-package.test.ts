import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
const RUNNER = path.join(REPOSITORY, 'scripts/test-every-package.mjs');

let folder: string;

/** A workspace of three packages whose `test` exits with the given code. */
function workspace(tests: Record<string, number>): void {
  const json = (file: string, value: unknown) =>
    writeFileSync(path.join(folder, file), `${JSON.stringify(value, null, 2)}\n`);
  json('package.json', { name: 'suites', private: true, packageManager: 'pnpm@10.34.9' });
  writeFileSync(path.join(folder, 'pnpm-workspace.yaml'), 'packages:\n  - "packages/*"\n');
  writeFileSync(path.join(folder, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n");
  json('turbo.json', { tasks: { test: { cache: false } } });
  for (const [name, code] of Object.entries(tests)) {
    mkdirSync(path.join(folder, 'packages', name), { recursive: true });
    json(`packages/${name}/package.json`, {
      name,
      scripts: { test: `node -e "console.log('${name} ran'); process.exit(${code})"` },
    });
  }
}

beforeAll(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-suites-'));
  spawnSync('git', ['init', '-q'], { cwd: folder });
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function runEverySuite() {
  return spawnSync(process.execPath, [RUNNER], {
    cwd: folder,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${path.join(REPOSITORY, 'node_modules/.bin')}:${process.env.PATH}` },
  });
}

describe('pnpm test', () => {
  it('runs every suite after one fails, names each at the end, and exits 1', () => {
    workspace({ alpha: 0, beta: 3, gamma: 0 });
    const run = runEverySuite();
    expect(run.stdout).toMatch(/alpha ran/);
    expect(run.stdout).toMatch(/gamma ran/);
    const summary = run.stdout.slice(run.stdout.indexOf('Test summary'));
    expect(summary).toMatch(/^Test summary: 1 failed$/m);
    expect(summary.trimEnd().split('\n').at(-1)).toMatch(/^suites: \d+ passed, 1 failed$/);
    expect(summary).toMatch(/^ {2}passed {3}alpha \(/m);
    expect(summary).toMatch(/^ {2}FAILED {3}beta#test \(exit 3,/m);
    expect(summary).toMatch(/^ {2}passed {3}gamma \(/m);
    expect(run.status).toBe(1);
  });

  it('exits 0 when every suite passed', () => {
    workspace({ alpha: 0, beta: 0, gamma: 0 });
    const run = runEverySuite();
    expect(run.stdout).toMatch(/^Test summary: every suite passed$/m);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(/^suites: \d+ passed, 0 failed$/);
    expect(run.status).toBe(0);
  });
});
