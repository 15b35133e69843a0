// What an idle process gives back of V8's heap (src/heap-release.ts). Each case runs in a fresh
// Node with the built kit, as a bin does: the heap starts as a bin's does, and no other test's
// garbage or collections are in the way.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../src/heap-release.js';

const dist = (file: string) => JSON.stringify(fileURLToPath(new URL(`../dist/${file}`, import.meta.url)));

/** Runs `body` (an ES module) in a fresh Node and returns what it printed, parsed. */
function inNode(body: string): unknown {
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', body], { encoding: 'utf8' }).trim(),
  );
}

// A start-up's worth of work: objects kept between many that are not, over a young generation
// grown by the burst, as loading the SDK and building schemas leave.
const START_UP = `
  const v8 = await import('node:v8');
  const heap = () => Object.fromEntries(
    v8.getHeapSpaceStatistics().map((space) => [space.space_name, space.physical_space_size]),
  );
  const kept = [];
  for (let i = 0; i < 400_000; i++) {
    const made = { i, text: 'item ' + i, list: [i, i + 1] };
    if (i % 8 === 0) kept.push(made);
  }
  globalThis.kept = kept;`;

describe('heap release', () => {
  it('gives back pages the heap holds empty or sparse, keeping every live object', () => {
    const seen = inNode(`
      await import(${dist('small-heap.js')});
      ${START_UP}
      const { releaseHeap } = await import(${dist('index.js')});
      // Quiet for a while after the burst, as a process is when its heap is released.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const before = heap();
      releaseHeap();
      const after = heap();
      console.log(JSON.stringify({ before, after, kept: kept.length, last: kept.at(-1).text }));`) as {
      before: Record<string, number>;
      after: Record<string, number>;
      kept: number;
      last: string;
    };
    const total = (spaces: Record<string, number>) =>
      Object.values(spaces).reduce((sum, bytes) => sum + bytes);
    expect(total(seen.after)).toBeLessThan(total(seen.before));
    expect(seen.kept).toBe(50_000);
    expect(seen.last).toBe('item 399992');
  }, 60_000);

  it("releases a bin's start-up heap once requests pause, once", () => {
    const seen = inNode(`
      await import(${dist('small-heap.js')});
      ${START_UP}
      const { createToolServer, createLogger } = await import(${dist('index.js')});
      const { connectInMemory } = await import(${dist('testing.js')});
      const { PerformanceObserver, constants } = await import('node:perf_hooks');
      let forced = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          if (entry.detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) forced++;
        }
      }).observe({ entryTypes: ['gc'] });
      const client = await connectInMemory(
        createToolServer({ name: 'quiet', version: '1.0.0', tools: [], engine: {}, log: createLogger({ level: 'error', scope: 'quiet' }) }),
      );
      await client.listTools();
      const total = () => Object.values(heap()).reduce((sum, bytes) => sum + bytes, 0);
      const before = total();
      while (forced === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      // PerformanceObserver reports a collection after it ended: wait for the sequence to be seen.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const released = { forced, total: total() };
      await client.listTools();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      console.log(JSON.stringify({ before, released, later: forced }));
      await client.close();`) as {
      before: number;
      released: { forced: number; total: number };
      later: number;
    };
    expect(seen.released.forced).toBeGreaterThanOrEqual(2);
    expect(seen.released.total).toBeLessThan(seen.before);
    // Once: a later pause is V8's own to collect.
    expect(seen.later).toBe(seen.released.forced);
  }, 60_000);

  it('leaves no gc function to other contexts', () => {
    collectGarbage();
    expect(runInNewContext('typeof gc')).toBe('undefined');
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe('undefined');
  });
});
