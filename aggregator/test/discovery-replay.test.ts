import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalQueries, exposedName } from './discovery-eval/eval-set.js';
import { meanMetrics, queryMetrics } from './discovery-eval/retrieval-metrics.js';
import { type Harness, startHarness } from './harness.js';

const CATALOGS = fileURLToPath(new URL('./fixtures/eval/catalogs', import.meta.url));
const CATALOG_SERVER = fileURLToPath(new URL('./fixtures/catalog-server.mjs', import.meta.url));

let replay: ChildProcess;
let harness: Harness;
/** Config server name → the catalogue's own server name. */
const serverOf = new Map<string, string>();

beforeAll(async () => {
  replay = spawn(process.execPath, [CATALOG_SERVER, CATALOGS], { stdio: ['ignore', 'ignore', 'pipe'] });
  const base = await new Promise<string>((resolve, reject) => {
    replay.stderr?.on('data', (chunk: Buffer) => {
      const found = /listening on (\S+)/.exec(chunk.toString());
      if (found) resolve(found[1] as string);
    });
    replay.once('exit', () => reject(new Error('catalog server exited')));
  });
  const mcpServers: Record<string, unknown> = {};
  for (const file of readdirSync(CATALOGS).filter((name) => name.endsWith('.json'))) {
    const slug = path.basename(file, '.json');
    const { server } = JSON.parse(readFileSync(path.join(CATALOGS, file), 'utf8')) as { server: string };
    const name = slug.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64);
    serverOf.set(name, server);
    mcpServers[name] = { url: `${base}/${encodeURIComponent(slug)}/mcp`, type: 'streamable-http' };
  }
  harness = await startHarness({ mcpServers });
});
afterAll(async () => {
  await harness.close();
  replay.kill('SIGKILL');
});

describe('search_tool_bm25 over 38 real catalogues replayed as MCP servers', () => {
  it('serves all 737 tools and finds the right one for real requests', async () => {
    const tools = harness.aggregator.registry.tools();
    expect(tools).toHaveLength(737);
    // Under the default cap of 48 characters, a third of the names are shortened with a hash:
    // hits are mapped back to the eval's (server, tool) through the registry, not by name.
    expect(tools.every((entry) => entry.exposed.length <= 48)).toBe(true);
    expect(tools.filter((entry) => /_[0-9a-f]{6}$/.test(entry.exposed)).length).toBeGreaterThan(200);
    const { call } = await harness.connect();
    const all = [];
    for (const query of evalQueries()) {
      const answer = (await call('search_tool_bm25', { query: query.q, limit: 25 })).structuredContent as {
        results: { name: string; server: string; score: number }[];
      };
      // Results come back under the aggregator's names; the eval knows tools by (server, tool).
      const scores = new Map<string, number>();
      for (const hit of answer.results) {
        const entry = harness.aggregator.registry.tool(hit.name);
        scores.set(exposedName(serverOf.get(hit.server) as string, entry?.tool.name as string), hit.score);
      }
      all.push(queryMetrics(scores, query.relevant));
    }
    const figures = meanMetrics(all);
    process.stderr.write(
      `search_tool_bm25 through the aggregator, 80 dev queries: R@1 ${figures.recallAt1.toFixed(3)}, R@5 ${figures.recallAt5.toFixed(3)}, MRR@10 ${figures.reciprocalRankAt10.toFixed(3)}\n`,
    );
    // What the index reaches today (see discovery-eval.test.ts, which also tracks the issue's
    // targets of 0.70 / 0.90): the served registry must rank as well as the index on its own.
    expect(figures.recallAt1).toBeGreaterThanOrEqual(0.7);
    expect(figures.recallAt5).toBeGreaterThanOrEqual(0.9);
    expect(figures.reciprocalRankAt10).toBeGreaterThanOrEqual(0.775);
  });

  it('lists candidates down to rank 15 past the limit, each as a name and one line without schema', async () => {
    const { call } = await harness.connect();
    const answer = (await call('search_tool_bm25', { query: 'github create pull request', limit: 3 }))
      .structuredContent as { results: { inputSchema: object }[]; more: Record<string, unknown>[] };
    expect(answer.results).toHaveLength(3);
    expect(answer.results.every((hit) => typeof hit.inputSchema === 'object')).toBe(true);
    expect(answer.more).toHaveLength(12);
    for (const hit of answer.more) {
      expect(Object.keys(hit).sort()).toEqual(['name', 'server', 'summary']);
      expect((hit.summary as string).length).toBeLessThanOrEqual(160);
    }
  });

  it('answers a whole task description with a pasted log, saying what it read and what it ignored', async () => {
    const { call } = await harness.connect();
    const task = `Take a screenshot of the current page in the browser.\n\n${'TypeError: x is undefined at render (app.js:1:1)\n'.repeat(400)}`;
    const answer = await call('search_tool_bm25', { query: task, limit: 5 });
    expect(answer.isError).toBeFalsy();
    const { results, advice } = answer.structuredContent as { results: { name: string }[]; advice: string };
    expect(results.some((hit) => /screenshot/.test(hit.name))).toBe(true);
    expect(advice).toMatch(/^Read the first 10 words of the query \("Take a screenshot/);
    expect(advice).toMatch(/ignored the other \d+ characters/);
  });

  it('says when the match is weak, which words no tool uses and which servers come closest', async () => {
    const { call } = await harness.connect();
    const answer = (await call('search_tool_bm25', { query: 'frobnicate the quarterly widgetry of pods' }))
      .structuredContent as { advice: string };
    expect(answer.advice).toMatch(/The best match is weak/);
    expect(answer.advice).toMatch(/No tool uses the words "frobnicate", "quarterly", "widgetry"/);
    expect(answer.advice).toMatch(/The servers whose tools come closest: mcp-server-kubernetes/);
    expect(answer.advice).toMatch(/Search again in the words a tool would use/);
    const nothing = (await call('search_tool_bm25', { query: 'zzyzx quuxle' })).structuredContent as {
      results: unknown[];
      advice: string;
    };
    expect(nothing.results).toEqual([]);
    expect(nothing.advice).toMatch(
      /^No tool matched\. No tool uses the words "zzyzx", "quuxle"\. The servers: /,
    );
  });
});
