import { describe, expect, it } from 'vitest';
import { splitByClosure } from '../src/graph/precise/closure-shares.js';

/** Splits a graph given as `file: imported files` in which every file has size 1 unless told. */
function split(graph: Record<string, string[]>, sizes: Record<string, number> = {}): string[][] {
  return splitByClosure(
    Object.keys(graph),
    (file) => graph[file] ?? [],
    (file) => sizes[file] ?? 1,
    2,
  );
}

describe('splitByClosure', () => {
  it('keeps each import cluster whole, so that no two groups load the same files', () => {
    const groups = split({
      'a/core.ts': [],
      'a/one.ts': ['a/core.ts'],
      'a/two.ts': ['a/one.ts'],
      'a/two.test.ts': ['a/two.ts'],
      'b/core.ts': [],
      'b/one.ts': ['b/core.ts'],
      'b/one.test.ts': ['b/one.ts'],
      'b/two.test.ts': ['b/core.ts'],
    });
    expect(groups.map((group) => group.slice().sort())).toEqual(
      expect.arrayContaining([
        ['a/core.ts', 'a/one.ts', 'a/two.test.ts', 'a/two.ts'],
        ['b/core.ts', 'b/one.test.ts', 'b/one.ts', 'b/two.test.ts'],
      ]),
    );
  });

  it('is not misled by a file importing every cluster', () => {
    const graph: Record<string, string[]> = { 'index.ts': ['a/0.ts', 'b/0.ts'] };
    for (const cluster of ['a', 'b'])
      for (let n = 0; n < 5; n++) graph[`${cluster}/${n}.ts`] = n === 0 ? [] : [`${cluster}/0.ts`];
    const groups = split(graph);
    const clusterOf = (file: string) => file.split('/')[0];
    const clusters = groups.map(
      (group) => new Set(group.filter((file) => file !== 'index.ts').map(clusterOf)),
    );
    expect(clusters.map((found) => found.size)).toEqual([1, 1]);
    expect(groups.flat().sort()).toEqual(Object.keys(graph).sort());
  });

  it('evens out the groups, and lists last the files another group loads too', () => {
    // One large cluster and a small one: the small one's group takes files of the large one.
    const graph: Record<string, string[]> = { 'small/0.ts': [] };
    for (let n = 0; n < 12; n++) graph[`large/${n}.ts`] = n === 0 ? [] : ['large/0.ts'];
    const groups = split(graph, { 'large/0.ts': 4 });
    const [smaller, larger] = groups
      .map((group) => ({ group, large: group.filter((file) => file.startsWith('large/')).length }))
      .sort((a, b) => a.large - b.large);
    expect(smaller?.group).toContain('small/0.ts');
    expect(smaller?.large).toBeGreaterThan(2);
    expect(larger?.group.length).toBeLessThan(12);
    // large/0.ts alone is loaded by both groups: the one checking it lists it last.
    const owner = groups.find((group) => group.includes('large/0.ts'));
    expect(owner?.at(-1)).toBe('large/0.ts');
  });
});
