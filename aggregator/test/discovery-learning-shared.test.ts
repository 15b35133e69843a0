import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, type Harness, startHarness, until } from './harness.js';
import { newBackend, REDIS_URL, type StateBackend } from './state-backends.js';

const raw = { mcpServers: { fixture: fixture('fixture'), other: fixture('other') } };

const names = (answer: unknown) =>
  ((answer as { structuredContent: { results: { name: string }[] } }).structuredContent.results ?? []).map(
    (hit) => hit.name,
  );

let backend: StateBackend;
const replicas: Harness[] = [];

async function replica(): Promise<Harness> {
  const harness = await startHarness(raw, {}, { state: await backend.open() });
  replicas.push(harness);
  return harness;
}

beforeAll(() => {
  backend = newBackend('redis');
});
afterAll(async () => {
  await Promise.allSettled(replicas.map((harness) => harness.close()));
  await backend.dispose();
});

describe('learning from use with the state shared in Redis', () => {
  it('is kept in Redis, lifts on every replica, and is forgotten by all of them', async () => {
    const [first, second] = [await replica(), await replica()];
    const firstTopFor = async (harness: Harness, query: string) => {
      const { call } = await harness.connect();
      return names(await call('search_tool_bm25', { query, limit: 3 }))[0];
    };
    expect(await firstTopFor(second, 'parrot my sentence')).not.toBe('fixture__echo');

    const { call } = await first.connect();
    expect(names(await call('search_tool_bm25', { query: 'parrot my sentence', limit: 3 }))).not.toContain(
      'fixture__echo',
    );
    expect(names(await call('search_tool_bm25', { query: 'echo text', limit: 3 }))).toContain(
      'fixture__echo',
    );
    await call('call_tool', { name: 'fixture__echo', arguments: { text: 'secret-value-4711' } });

    // The other replica learns it from the announcement, without reading Redis again.
    await until(async () => (await firstTopFor(second, 'parrot my sentence')) === 'fixture__echo', 20_000);

    const redis = new Redis(REDIS_URL);
    try {
      const kept = await redis.hgetall(`${backend.settings.redisKeyPrefix}discovery:associations`);
      expect(Object.keys(kept)).toEqual(
        expect.arrayContaining(['parrot fixture__echo', 'sentenc fixture__echo', 'echo fixture__echo']),
      );
      expect(JSON.stringify(kept)).not.toMatch(/secret|4711/);
    } finally {
      redis.disconnect();
    }

    // A replica started later reads what the fleet learnt.
    const third = await replica();
    expect(await firstTopFor(third, 'parrot my sentence')).toBe('fixture__echo');

    await second.aggregator.learning.clear();
    await until(() => first.aggregator.learning.associations?.size === 0, 20_000);
    await until(() => third.aggregator.learning.associations?.size === 0, 20_000);
    expect(await firstTopFor(first, 'parrot my sentence')).not.toBe('fixture__echo');
  });

  it('is forgotten by toolmesh discovery forget --redis, running replicas included', async () => {
    const [running] = [await replica()];
    const { call } = await running.connect();
    expect(names(await call('search_tool_bm25', { query: 'shout back', limit: 5 }))).toContain(
      'fixture__echo',
    );
    await call('call_tool', { name: 'fixture__echo', arguments: { text: 'x' } });
    await until(() => (running.aggregator.learning.associations?.size ?? 0) > 0);

    const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const forgot = await promisify(execFile)(
      process.execPath,
      [bin, 'discovery', 'forget', '--redis', REDIS_URL],
      {
        env: { ...process.env, TOOLMESH_REDIS_PREFIX: backend.settings.redisKeyPrefix },
        timeout: 120_000,
      },
    );
    expect(forgot.stdout).toMatch(/^forgot \d+ learnt links? between search words and tools\n$/);
    expect(forgot.stdout).not.toBe('forgot 0 learnt links between search words and tools\n');
    await until(() => running.aggregator.learning.associations?.size === 0, 20_000);
  });
});
