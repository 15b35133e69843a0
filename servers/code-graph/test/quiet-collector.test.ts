import { constants, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import { connectInMemory } from '@toolmesh/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { QuietCollector } from '../src/graph/quiet-collector.js';
import { createCodeGraphServer } from '../src/server.js';
import { copyFixture, indexedGraph, quietLog, until } from './fixture-graph.js';

/** Full collections asked for by code (V8's forced flag), as they happen. */
function watchForcedCollections(): { count: () => number; stop: () => void } {
  let forced = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { detail } = entry as unknown as { detail: { kind: number; flags: number } };
      if (
        detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR &&
        detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED
      )
        forced++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return { count: () => forced, stop: () => observer.disconnect() };
}

/** Resident bytes of V8's young generation. */
function youngGeneration(): number {
  const space = v8.getHeapSpaceStatistics().find((entry) => entry.space_name === 'new_space');
  if (!space) throw new Error('V8 reports no new_space');
  return space.physical_space_size;
}

/** Many short-lived objects, some surviving a scavenge, as indexing makes: V8 grows its young generation. */
function churn(): void {
  let kept: object[] = [];
  for (let i = 0; i < 2_000_000; i++) {
    kept.push({ i, text: `name ${i}` });
    if (kept.length > 50_000) kept = [];
  }
}

describe('QuietCollector', () => {
  let stopWatching: (() => void) | undefined;
  const cleanup: (() => unknown)[] = [];
  afterEach(async () => {
    stopWatching?.();
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('collects twice once quiet, none while work goes on, and shrinks the young generation', async () => {
    churn();
    const grown = youngGeneration();
    expect(grown).toBeGreaterThanOrEqual(8 * 1024 ** 2);
    const forced = watchForcedCollections();
    stopWatching = forced.stop;
    let quiet = false;
    let asked = 0;
    const collector = new QuietCollector(() => {
      asked++;
      return quiet;
    }, 10);
    collector.poke();
    await until('the collector to look', () => asked === 1);
    quiet = true;
    collector.poke();
    await until('two full collections', () => forced.count() >= 2, 60_000);
    // The first look, while not quiet, collected nothing.
    expect(asked).toBe(3);
    expect(forced.count()).toBe(2);
    expect(youngGeneration()).toBeLessThanOrEqual(grown / 4);
  });

  it('collects what a tool answer left once the graph is quiet again, and answers the same after', async () => {
    const copy = copyFixture('ts-shop');
    cleanup.push(() => copy.remove());
    const graph = await indexedGraph(copy, { precise: false });
    cleanup.push(() => graph.close());
    const client = await connectInMemory(createCodeGraphServer({ graph, log: quietLog }));
    cleanup.push(() => client.close());
    const forced = watchForcedCollections();
    stopWatching = forced.stop;
    // The two collections that follow the index.
    await until('the collections after the index', () => forced.count() >= 2, 30_000);
    const first = await client.call('search_code', { query: 'Money' });
    await until('a collection after the answer', () => forced.count() >= 3, 30_000);
    expect(await client.call('search_code', { query: 'Money' })).toEqual(first);
  }, 60_000);
});
