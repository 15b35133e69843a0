import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeGraph } from '../src/graph/code-graph.js';
import { GraphStore } from '../src/graph/graph-store.js';
import { DEFERRED_INDEXES } from '../src/graph/schema.js';
import { copyFixture, type FixtureCopy, indexedGraph } from './fixture-graph.js';

const DEFERRED_NAMES = Object.values(DEFERRED_INDEXES).flatMap((group) => Object.keys(group));

function indexNames(store: GraphStore): string[] {
  return (
    store.db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .pluck()
      .all() as string[]
  ).sort();
}

/** Every edge by the names at its ends, so two databases of the same files compare equal. */
function edgeDump(graph: CodeGraph): string[] {
  const store = graph.roots[0]?.index.store as GraphStore;
  return (
    store.db
      .prepare(
        `SELECT e.kind, s.qualified_name AS source, t.qualified_name AS target, e.target_text, f.path, e.line,
                e.resolution, e.confidence
         FROM edges e JOIN symbols s ON s.id = e.source_id LEFT JOIN symbols t ON t.id = e.target_id
         JOIN files f ON f.id = e.file_id`,
      )
      .all() as Record<string, unknown>[]
  )
    .map((row) => JSON.stringify(row))
    .sort();
}

/** The edits applied to the fixture after its first index: a new caller, a changed method, a new file. */
function edit(copy: FixtureCopy): string[] {
  copy.write(
    'src/pricing/money.ts',
    `import type { Rate } from './rate';

/** An amount of money in minor units. */
export class Money {
  constructor(readonly cents: number) {}

  multiplyByRate(rate: Rate): Money {
    return new Money(Math.round(this.cents * rate.value())).half();
  }

  half(): Money {
    return new Money(this.cents / 2);
  }

  add(other: Money): Money {
    return new Money(this.cents + other.cents);
  }
}

export type Currency = 'EUR' | 'USD';
`,
  );
  copy.write(
    'src/refund.ts',
    `import { Money } from './pricing';

export function refund(amount: Money): Money {
  return amount.half().add(new Money(1));
}
`,
  );
  return ['src/pricing/money.ts', 'src/refund.ts'];
}

describe('bulk first index', () => {
  const cleanup: (() => unknown)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('gives a store opened without its deferred indexes every one of them back', () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-code-graph-indexes-'));
    cleanup.push(() => rmSync(folder, { recursive: true, force: true }));
    const file = path.join(folder, 'graph.sqlite');
    const fresh = new GraphStore(file);
    const expected = indexNames(fresh);
    expect(expected).toEqual(expect.arrayContaining(DEFERRED_NAMES));
    fresh.dropDeferredIndexes();
    expect(indexNames(fresh).filter((name) => DEFERRED_NAMES.includes(name))).toEqual([]);
    fresh.close();
    const reopened = new GraphStore(file);
    expect(indexNames(reopened)).toEqual(expected);
    reopened.close();
  });

  it('ends a first index with every index, and later updates resolve as a first index of the same files', async () => {
    const updated = copyFixture('ts-shop');
    cleanup.push(() => updated.remove());
    const graph = await indexedGraph(updated);
    cleanup.push(() => graph.close());
    const store = graph.roots[0]?.index.store as GraphStore;
    const fresh = new GraphStore(path.join(updated.base, 'reference.sqlite'));
    const allIndexes = indexNames(fresh);
    fresh.close();
    expect(indexNames(store)).toEqual(allIndexes);

    await graph.roots[0]?.index.update(edit(updated));
    expect(indexNames(store)).toEqual(allIndexes);

    const scratch = copyFixture('ts-shop');
    cleanup.push(() => scratch.remove());
    edit(scratch);
    const reference = await indexedGraph(scratch);
    cleanup.push(() => reference.close());
    const dump = edgeDump(graph);
    expect(
      dump.some((row) => row.includes('"source":"refund"') && row.includes('"target":"Money.half"')),
    ).toBe(true);
    expect(dump).toEqual(edgeDump(reference));
  });
});
