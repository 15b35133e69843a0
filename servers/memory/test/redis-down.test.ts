import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, type MemoryFixture, memoryFixture } from './fixture.js';

describe('hot memory in a Redis that does not answer', () => {
  let m: MemoryFixture;
  beforeAll(async () => {
    m = await memoryFixture({
      redisUrl: `redis://:hunter2@127.0.0.1:${await closedPort()}`,
      workspaces: ['w'],
    });
  });
  afterAll(async () => {
    await m.close();
  });

  it('answers isError on hot-memory tools, saying so and what to do, without the password', async () => {
    const refused = await m.fails('remember', { text: 'will not fit' });
    expect(refused).toMatch(
      /hot memory is unavailable: Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/? does not answer/,
    );
    expect(refused).toMatch(/restart the server without --redis/);
    expect(refused).not.toMatch(/hunter2/);
    expect(await m.fails('consolidate_memory')).toMatch(/hot memory is unavailable/);
  });

  it('keeps long-term tools working, and says in reads that hot memory is missing', async () => {
    await m.ok('propose_fact', { statement: 'Redis outages do not stop long-term memory' });
    const found = await m.ok<{ hits: unknown[]; warnings: string[] }>('search_memory', {
      query: 'redis outages',
      mode: 'keyword',
    });
    expect(found.hits).toHaveLength(1);
    expect(found.warnings.join(' ')).toMatch(/hot memory is unavailable/);
    const notes = await m.ok<{ hotError?: string; revision: number }>('get_my_notes');
    expect(notes.hotError).toMatch(/hot memory is unavailable/);
    await m.ok('update_my_notes', { notes: 'still here', base_revision: 0 });
    await m.ok('record_observation', { observation: 'redis down during the test' });
    expect((await m.ok<{ domains: unknown[] }>('list_memory_domains')).domains).toHaveLength(1);
  });
});
