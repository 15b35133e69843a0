import { describe, expect, it } from 'vitest';
import type { IndexedTool } from '../src/discovery/indexed-tool.js';
import { ToolIndex } from '../src/discovery/tool-index.js';
import { type EvalQuery, evalQueries, evalRegistry } from './discovery-eval/eval-set.js';
import { meanMetrics, type QueryMetrics, queryMetrics } from './discovery-eval/retrieval-metrics.js';

/**
 * Tool-search quality of the ToolIndex itself on real catalogues (38 public MCP servers,
 * 737 tools) and the 80 development queries. A hit is the expected tool or any alternate;
 * ties count in expectation. The figures are printed so they can be recorded in the docs.
 */
describe('tool search quality on the development set', () => {
  /** Indexes `registry`; the measure of one request over it, every tool scored. */
  const measureOver = (registry: IndexedTool[]) => {
    const index = new ToolIndex();
    for (const entry of registry) index.upsert(entry);
    return (query: EvalQuery) => {
      const scores = new Map(registry.map(({ name }) => [name, 0]));
      for (const hit of index.search(query.q, registry.length)) scores.set(hit.name, hit.score);
      return queryMetrics(scores, query.relevant);
    };
  };
  const registry = evalRegistry();
  const queries = evalQueries();
  const measure = measureOver(registry);
  const perQuery = queries.map(measure);
  // A second author's requests, written without seeing the search, over the 38 catalogues and
  // 21 more that nothing was ever tuned on (1,339 tools): how it does on other catalogues.
  const merged = evalRegistry(['catalogs', 'catalogs-extra']);
  const measureMerged = measureOver(merged);
  const blind2 = meanMetrics(evalQueries('queries-blind2.jsonl').map(measureMerged));
  const devMerged = meanMetrics(queries.map(measureMerged));
  const overall = meanMetrics(perQuery);
  // Written after the tuning, without looking at any ranking, and never tuned on: how the
  // search does on requests phrased by someone else.
  const blind = meanMetrics(evalQueries('queries-blind.jsonl').map(measure));
  // Tuning looked at the even lines only; the odd ones stay held out, to show what generalises.
  const halves = {
    'even lines': meanMetrics(perQuery.filter((_, at) => at % 2 === 0)),
    'odd lines': meanMetrics(perQuery.filter((_, at) => at % 2 === 1)),
  };

  it('reports Recall@1, Recall@5 and MRR@10, overall and on each half', () => {
    const line = (label: string, metrics: QueryMetrics, count: number) =>
      `${label.padEnd(12)} n=${String(count).padEnd(3)} R@1 ${metrics.recallAt1.toFixed(3)}  R@5 ${metrics.recallAt5.toFixed(3)}  MRR@10 ${metrics.reciprocalRankAt10.toFixed(3)}`;
    console.error(
      [
        `tool search over ${registry.length} tools:`,
        line('all', overall, perQuery.length),
        ...Object.entries(halves).map(([half, metrics]) => line(half, metrics, perQuery.length / 2)),
        line('blind set', blind, 80),
        `over ${merged.length} tools (the 38 catalogues and 21 more):`,
        line('development', devMerged, perQuery.length),
        line('blind set 2', blind2, 100),
      ].join('\n'),
    );
    expect(registry).toHaveLength(737);
    expect(queries).toHaveLength(80);
    expect(merged).toHaveLength(1339);
  });

  it('holds the level it has reached', () => {
    expect(overall.recallAt1).toBeGreaterThanOrEqual(0.67);
    expect(overall.recallAt5).toBeGreaterThanOrEqual(0.875);
    expect(overall.reciprocalRankAt10).toBeGreaterThanOrEqual(0.75);
    expect(halves['odd lines'].recallAt1).toBeGreaterThanOrEqual(0.6);
    expect(halves['odd lines'].recallAt5).toBeGreaterThanOrEqual(0.8);
    expect(blind.recallAt1).toBeGreaterThanOrEqual(0.55);
    expect(blind.recallAt5).toBeGreaterThanOrEqual(0.83);
    expect(blind2.recallAt1).toBeGreaterThanOrEqual(0.7);
    expect(blind2.recallAt5).toBeGreaterThanOrEqual(0.85);
  });

  // The issue asks for Recall@5 ≥ 0.90 and Recall@1 ≥ 0.70. The tuned (even) half meets both;
  // the held-out (odd) half does not yet. When both do, this fails: make it a plain `it`.
  it.fails('meets the issue’s targets on both halves: Recall@5 ≥ 0.90 and Recall@1 ≥ 0.70', () => {
    for (const metrics of Object.values(halves)) {
      expect(metrics.recallAt5).toBeGreaterThanOrEqual(0.9);
      expect(metrics.recallAt1).toBeGreaterThanOrEqual(0.7);
    }
  });
});
