import { createLogger, HttpEmbedder } from '@toolmesh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/load.js';
import { ToolEmbeddings } from '../src/discovery/tool-embeddings.js';
import { ToolIndex } from '../src/discovery/tool-index.js';
import { type EvalQuery, evalQueries, evalRegistry, modelPhrased } from './discovery-eval/eval-set.js';
import { meanMetrics, type QueryMetrics, queryMetrics } from './discovery-eval/retrieval-metrics.js';
import { type EmbeddingsServer, startUseLiteServer } from './fixtures/use-lite-server.js';
import { fixture, type Harness, startHarness } from './harness.js';

const log = createLogger({ scope: 'test', level: 'error' });
/** As deep as search_tool_bm25 lists: its hits and the one-line candidates after them. */
const DEPTH = 15;
/** The model runs in this test's own process: on a busy machine a batch can take far over the default 30 s. */
const MODEL_BOUND_MS = 600_000;

let model: EmbeddingsServer;
beforeAll(async () => {
  model = await startUseLiteServer();
}, 120_000);
afterAll(async () => {
  await model.close();
});

/**
 * The embeddings stage against a real (weak) sentence model served over the OpenAI-compatible
 * API, on the 38 catalogues: BM25 alone, the model alone, and fused, for the development set
 * and the blind set in both phrasings. The figures are printed for docs/aggregator.md.
 */
describe('the embeddings stage with USE-lite on real catalogues', () => {
  const registry = evalRegistry();
  const index = new ToolIndex();
  for (const entry of registry) index.upsert(entry);
  const development = evalQueries();
  const sets: Record<string, EvalQuery[]> = {
    'dev, even (tuned)': development.filter((_, at) => at % 2 === 0),
    'dev, odd (held out)': development.filter((_, at) => at % 2 === 1),
    'blind, person': evalQueries('queries-blind.jsonl'),
    'blind, model': modelPhrased('queries-blind.jsonl'),
  };
  const metricsOf = (hits: { name: string; score: number }[], query: EvalQuery) => {
    const scores = new Map(registry.map(({ name }) => [name, 0]));
    for (const hit of hits) scores.set(hit.name, hit.score);
    return queryMetrics(scores, query.relevant);
  };

  it('embeds every tool once, and ranks with BM25 no worse at Recall@15 on any set', async () => {
    const stage = new ToolEmbeddings(
      new HttpEmbedder({ url: model.url, model: 'use-lite', timeoutMs: MODEL_BOUND_MS }),
      log,
    );
    await stage.sync(registry);
    expect(stage.embedded).toBe(registry.length);
    const before = model.inputs;
    await stage.sync(registry);
    expect(model.inputs).toBe(before);
    // A registry change embeds only what it changed: here one tool's description.
    const [first, ...rest] = registry;
    await stage.sync([{ ...first!, description: `Changed. ${first!.description ?? ''}` }, ...rest]);
    expect(model.inputs).toBe(before + 1);
    await stage.sync(registry);
    expect(model.inputs).toBe(before + 2);

    const rows: string[] = ['| set | BM25 R@1 / R@5 / R@15 | USE-lite alone | fused |'];
    const cells = (metrics: QueryMetrics) =>
      [metrics.recallAt1, metrics.recallAt5, metrics.recallAt15].map((value) => value.toFixed(3)).join(' / ');
    for (const [label, queries] of Object.entries(sets)) {
      const bm25: QueryMetrics[] = [];
      const alone: QueryMetrics[] = [];
      const fused: QueryMetrics[] = [];
      for (const query of queries) {
        const found = index.find(query.q, DEPTH);
        bm25.push(metricsOf(found.hits, query));
        alone.push(metricsOf((await stage.fuse(found.read, [], DEPTH)).hits, query));
        fused.push(metricsOf((await stage.fuse(found.read, found.hits, DEPTH)).hits, query));
      }
      const [b, a, f] = [meanMetrics(bm25), meanMetrics(alone), meanMetrics(fused)];
      rows.push(`| ${label} | ${cells(b)} | ${cells(a)} | ${cells(f)} |`);
      expect(f.recallAt15).toBeGreaterThanOrEqual(b.recallAt15 - 0.025);
    }
    console.error(rows.join('\n'));
  }, 600_000);
});

describe('search_tool_bm25 with discovery.embeddings', () => {
  let harness: Harness;
  const servers = { mcpServers: { fixture: fixture('fixture') } };
  afterAll(async () => {
    await harness?.close();
  });

  it('embeds the registry once and ranks with the model; says so and goes on with BM25 when it is gone', async () => {
    harness = await startHarness({
      ...servers,
      discovery: { embeddings: { url: model.url, model: 'use-lite', timeoutMs: MODEL_BOUND_MS } },
    });
    await harness.aggregator.embeddings.synced();
    const stage = harness.aggregator.embeddings.stage!;
    expect(stage.embedded).toBe(harness.aggregator.registry.tools().length);
    const { call } = await harness.connect();
    const answer = (await call('search_tool_bm25', { query: 'repeat back what I typed', limit: 3 }))
      .structuredContent as { results: { name: string }[]; advice?: string };
    expect(answer.results.map((hit) => hit.name)).toContain('fixture__echo');
    expect(answer.advice ?? '').not.toMatch(/Ranked by words alone/);

    const gone = parseConfig({
      ...servers,
      discovery: { embeddings: { url: 'http://127.0.0.1:1/v1', model: 'm' } },
    });
    await harness.reload({ config: gone.config, servers: gone.servers });
    const fallback = (await call('search_tool_bm25', { query: 'echo text', limit: 3 })).structuredContent as {
      results: { name: string }[];
      advice: string;
    };
    expect(fallback.results[0]?.name).toBe('fixture__echo');
    expect(fallback.advice).toMatch(/^Ranked by words alone: the embeddings endpoint .* does not answer/);

    const none = parseConfig(servers);
    await harness.reload({ config: none.config, servers: none.servers });
    expect(harness.aggregator.embeddings.stage).toBeUndefined();
  }, 120_000);
});
