import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFixture, type FixtureCopy, until } from './fixture-graph.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
let copy: FixtureCopy;

beforeAll(() => {
  copy = copyFixture('ts-precise');
});
afterAll(() => copy.remove());

/** The worker processes (parse workers, TypeScript checker) a process has started, by pid. */
function workersOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** Whether a process still runs (a zombie has ended; only its exit status waits for a reaper). */
function running(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

describe('worker processes', () => {
  it('end with the server when it is killed', async () => {
    const server = spawn(process.execPath, [BIN, '--root', copy.root, '--log-level', 'warning'], {
      env: { ...process.env, TOOLMESH_DATA_DIR: copy.dataDir },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = new Promise((resolve) => server.once('exit', resolve));
    const pid = server.pid as number;
    // The fixture's tsconfig.json turns the precise checker on: a worker process once the syntactic index is done.
    let workers: number[] = [];
    await until(
      'a worker process',
      () => {
        workers = workersOf(pid);
        return workers.length > 0;
      },
      60_000,
    );
    server.kill('SIGKILL');
    await exited;
    await until('the workers to end', () => workers.every((worker) => !running(worker)), 60_000);
    expect(workers.filter(running)).toEqual([]);
  });
});
