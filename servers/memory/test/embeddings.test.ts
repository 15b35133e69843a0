import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createLogger, HttpEmbedder } from '@toolmesh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeCompactVectors,
  encodeCompactVectors,
  SHIPPED_WORDS,
} from '../src/embeddings/compact-vectors.js';
import { OfflineEmbedder } from '../src/embeddings/offline-embedder.js';
import { openMemoryEngine } from '../src/server.js';
import { memoryFixture, tempDir } from './fixture.js';

const DIMENSIONS = 32;
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);

/** A deterministic embedding: each word adds 1 to a dimension picked by a hash of the word. */
function hashedVector(text: string): number[] {
  const vector = new Array(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let hash = 0;
    for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
    vector[hash % DIMENSIONS] += 1;
  }
  return vector;
}

/** An OpenAI-compatible /v1/embeddings endpoint on 127.0.0.1 that answers in reverse order, with index. */
let http: Server;
let base: string;
const requests: { model: string; inputs: number; auth?: string }[] = [];
beforeAll(async () => {
  http = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      if (request.url !== '/v1/embeddings' || request.method !== 'POST') {
        response.writeHead(404).end('not here');
        return;
      }
      const { model, input } = JSON.parse(body) as { model: string; input: string[] };
      requests.push({
        model,
        inputs: input.length,
        ...(request.headers.authorization && { auth: request.headers.authorization }),
      });
      // Answers an endpoint that is not what it claims could give: null entries, indexes out of range.
      if (model === 'garbled') {
        const data = [null, ...input.map((_, index) => ({ index: index + 5, embedding: [1, 0] }))];
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
        return;
      }
      if (model === 'broken') {
        response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"model exploded"}');
        return;
      }
      const data = input
        .map((text, index) => ({ object: 'embedding', index, embedding: hashedVector(`${model} ${text}`) }))
        .reverse();
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data, model }));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise((resolve) => http.close(resolve)));

describe('the OpenAI-compatible embedder', () => {
  it('posts the model and inputs, places vectors by index and scales them to unit length', async () => {
    const embedder = new HttpEmbedder({ url: base, model: 'tiny', apiKey: 'sk-test' });
    const [a, b] = await embedder.embed(['alpha beta', 'gamma']);
    expect(a).toHaveLength(DIMENSIONS);
    expect(cosine(a as Float32Array, a as Float32Array)).toBeCloseTo(1, 5);
    const expected = Float32Array.from(hashedVector('tiny gamma'));
    expect(cosine(b as Float32Array, expected) / Math.hypot(...expected)).toBeCloseTo(1, 5);
    expect(requests.at(-1)).toEqual({ model: 'tiny', inputs: 2, auth: 'Bearer sk-test' });
    expect(embedder.id).toBe(`openai:tiny@${base}/embeddings`);
  });

  it('says what went wrong when the endpoint fails or is not there', async () => {
    await expect(new HttpEmbedder({ url: base, model: 'broken' }).embed(['x'])).rejects.toThrow(
      /answered 500: .*model exploded/,
    );
    await expect(new HttpEmbedder({ url: 'http://127.0.0.1:1/v1', model: 'm' }).embed(['x'])).rejects.toThrow(
      /does not answer/,
    );
  });

  it('refuses a garbled answer with a clear error, and hybrid search falls back to keywords', async () => {
    await expect(new HttpEmbedder({ url: base, model: 'garbled' }).embed(['a', 'b'])).rejects.toThrow(
      /did not return one embedding per input/,
    );
    const m = await memoryFixture({
      embedder: new HttpEmbedder({ url: base, model: 'garbled' }),
      workspaces: ['w'],
    });
    try {
      await m.ok('propose_fact', { statement: 'garbled endpoints happen' });
      const out = await m.ok<{ hits: { body: string }[]; warnings: string[] }>('search_memory', {
        query: 'garbled endpoints',
      });
      expect(out.hits.map((hit) => hit.body)).toEqual(['garbled endpoints happen']);
      expect(out.warnings.join(' ')).toMatch(/keyword ranking only: .*one embedding per input/);
    } finally {
      await m.close();
    }
  });

  it('serves semantic search through a real client', async () => {
    const m = await memoryFixture({
      embedder: new HttpEmbedder({ url: base, model: 'tiny' }),
      workspaces: ['w'],
    });
    try {
      await m.ok('propose_fact', { statement: 'alpha beta gamma' });
      await m.ok('propose_fact', { statement: 'delta epsilon' });
      const out = await m.ok<{ hits: { body: string; via: string[] }[]; semantic: { provider: string } }>(
        'search_memory',
        { query: 'epsilon delta', mode: 'semantic' },
      );
      expect(out.hits[0]).toMatchObject({ body: 'delta epsilon', via: ['semantic'] });
      expect(out.semantic.provider).toMatch(/^openai:tiny@/);
    } finally {
      await m.close();
    }
  });
});

describe('an embeddings endpoint that does not answer', () => {
  it('leaves hybrid search with keyword ranking and a warning, and fails semantic search saying so', async () => {
    const m = await memoryFixture({
      embedder: new HttpEmbedder({
        url: 'http://127.0.0.1:1/v1',
        model: 'm',
        remedy: 'use mode keyword, or fix --embeddings-url.',
      }),
      workspaces: ['w'],
    });
    try {
      await m.ok('propose_fact', { statement: 'the gateway rejects expired tokens' });
      const hybrid = await m.ok<{ hits: { via: string[] }[]; warnings: string[] }>('search_memory', {
        query: 'expired tokens',
      });
      expect(hybrid.hits.map((hit) => hit.via)).toEqual([['keyword']]);
      expect(hybrid.warnings.join(' ')).toMatch(
        /keyword ranking only: the embeddings endpoint .* does not answer/,
      );
      expect(await m.fails('search_memory', { query: 'expired tokens', mode: 'semantic' })).toMatch(
        /does not answer .*use mode keyword/,
      );
    } finally {
      await m.close();
    }
  });
});

describe('switching provider', () => {
  it('re-embeds every row in the background, with progress, and searches with the new vectors', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'memory.db');
    const log = createLogger({ level: 'error', scope: 'test' });
    const actor = { workspace: 'w', identity: 'me' };
    const before = openMemoryEngine({ file, log, embedder: new HttpEmbedder({ url: base, model: 'old' }) });
    for (let i = 0; i < 1100; i++)
      before.propose(actor, { kind: 'fact', domain: 'general', body: `item ${i} word${i % 7}` });
    await before.startEmbedding();
    expect(before.semantic.coverage('w')).toMatchObject({ embedded: 1100, total: 1100 });
    await before.shutdown();

    const progress: number[] = [];
    const after = openMemoryEngine({
      file,
      log,
      embedder: new HttpEmbedder({ url: base, model: 'new' }),
      onEmbeddingProgress: (done, total) => {
        expect(total).toBe(1100);
        progress.push(done);
      },
    });
    const requestsBefore = requests.length;
    expect(after.semantic.coverage('w')).toMatchObject({ embedded: 0, total: 1100 });
    const search = () =>
      after.search(actor, {
        query: 'word3',
        mode: 'semantic',
        filter: { kinds: ['fact'] },
        limit: 5,
        includeHot: false,
      });
    const during = await search();
    expect(during.warnings.join(' ')).toMatch(/semantic ranking covers \d+ of 1100 entries/);
    await after.startEmbedding();
    expect(progress.at(-1)).toBe(1100);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.length).toBeGreaterThanOrEqual(4);
    expect(requests.slice(requestsBefore).every((r) => r.model === 'new' && r.inputs <= 256)).toBe(true);
    const done = await search();
    expect(done.warnings).toEqual([]);
    expect(done.hits.every((hit) => hit.memory.body.endsWith('word3'))).toBe(true);
    await after.shutdown();
  });

  it('sees rows another process embedded into the same file', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'memory.db');
    const log = createLogger({ level: 'error', scope: 'test' });
    const actor = { workspace: 'w', identity: 'me' };
    const embedder = new HttpEmbedder({ url: base, model: 'shared' });
    const one = openMemoryEngine({ file, log, embedder });
    const two = openMemoryEngine({ file, log, embedder });
    const ask = (engine: typeof one) =>
      engine.search(actor, {
        query: 'zeta eta',
        mode: 'semantic',
        filter: { kinds: ['fact'] },
        limit: 5,
        includeHot: false,
      });
    one.propose(actor, { kind: 'fact', domain: 'general', body: 'theta iota' });
    expect((await ask(one)).hits).toHaveLength(1);
    two.propose(actor, { kind: 'fact', domain: 'general', body: 'zeta eta' });
    await two.startEmbedding();
    expect((await ask(one)).hits[0]?.memory.body).toBe('zeta eta');
    await one.shutdown();
    await two.shutdown();
  });
});

describe('the offline embedder', () => {
  it('puts sentences of like meaning closer than unrelated ones, with no word in common', async () => {
    const embedder = new OfflineEmbedder();
    const [deploy, ship, invoice, empty] = await embedder.embed([
      'deploys happen on Fridays',
      'we release to production at the end of the week',
      'invoices are stored in the billing database',
      '#### !!!',
    ]);
    expect(cosine(deploy as Float32Array, ship as Float32Array)).toBeGreaterThan(
      cosine(deploy as Float32Array, invoice as Float32Array),
    );
    expect([...(empty as Float32Array)].every((x) => x === 0)).toBe(true);
    expect(embedder.vectors()).toBe(embedder.vectors());
    expect(embedder.vectors().index.size).toBe(SHIPPED_WORDS);
  });
});

describe('the compact word vectors', () => {
  const table = {
    dimensions: 3,
    index: new Map([
      ['deploy', 0],
      ['Friday', 1],
      ['week', 2],
      ['été', 3],
    ]),
    vectors: Float32Array.from([0.5, -1, 0.25, 9, 9, 9, 0, 0, 0, 2, -0.5, 1]),
    rank: Uint32Array.from([0, 1, 2, 3]),
    vocabularySize: 40,
  };

  it('keep the words the tokenizer can look up, most frequent first, within 1% of each value', () => {
    const compact = decodeCompactVectors(encodeCompactVectors(table, 2));
    expect([...compact.index.keys()]).toEqual(['deploy', 'week']);
    expect([...compact.rank]).toEqual([0, 2]);
    expect(compact.vocabularySize).toBe(40);
    const expected = [0.5, -1, 0.25, 0, 0, 0];
    compact.vectors.forEach((value, k) => {
      expect(Math.abs(value - (expected[k] as number))).toBeLessThan(0.01);
    });
    const all = decodeCompactVectors(encodeCompactVectors(table));
    expect(all.index.get('été')).toBe(2);
  });

  it('refuse a file that is not theirs or is cut short, saying what to do', () => {
    const bytes = encodeCompactVectors(table);
    expect(() => decodeCompactVectors(Buffer.from('{"vectors": {}}'), 'x.bin')).toThrow(
      'x.bin is not a toolmesh word-vector file: rebuild @toolmesh/server-memory',
    );
    expect(() => decodeCompactVectors(bytes.subarray(0, bytes.length - 1), 'x.bin')).toThrow(
      /x\.bin is \d+ bytes, its header says \d+: the file looks damaged/,
    );
  });
});
