import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFixture, type FixtureCopy, until } from './fixture-graph.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
let copy: FixtureCopy;
let layers: FixtureCopy;

beforeAll(() => {
  copy = copyFixture('ts-precise');
  layers = copyFixture('ts-layers');
});
afterAll(() => {
  copy.remove();
  layers.remove();
});

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

describe('a one-shot CLI run', () => {
  // Its parse workers' pipes are unref'd while idle; ending them must keep the CLI alive until
  // both have closed, or it left with code 13 (an unsettled top-level await), about one run in 15.
  // Forty runs each index the fixture: a few seconds a batch when quiet, half a minute and more
  // on a loaded machine (120 s ran out with four busy loops beside the suite), hence the wide limit.
  it('exits 0 with its answer every time, once its parse workers have ended', async () => {
    const run = promisify(execFile);
    const args = [BIN, 'impact', 'Order.total', '--depth', '1', '--root', layers.root];
    for (let batch = 0; batch < 10; batch++) {
      // Each run its own data directory: four indexing one database at once would wait on its lock.
      const runs = await Promise.allSettled(
        Array.from({ length: 4 }, (_, slot) =>
          run(process.execPath, args, {
            env: { ...process.env, TOOLMESH_DATA_DIR: path.join(layers.dataDir, `${batch}-${slot}`) },
          }),
        ),
      );
      for (const outcome of runs) {
        if (outcome.status === 'rejected') throw outcome.reason;
        expect(outcome.value.stdout).toContain('Order.total (src/domain/order.ts:14), depth 1');
      }
    }
  }, 600_000);
});
