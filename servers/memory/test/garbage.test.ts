import { resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MemoryFixture, memoryFixture } from './fixture.js';

const GARBAGE: unknown[] = [
  null,
  42,
  -1,
  1e308,
  Number.NaN,
  true,
  '',
  ' ',
  'x'.repeat(300_000),
  '\u0000\uFFFF\uD800',
  '") OR 1=1; DROP TABLE memories; --',
  'NEAR(a b) AND * OR "unterminated ^col:',
  ['a'],
  { nested: { deep: [1, 2, 3] } },
];

describe('garbage input', () => {
  let m: MemoryFixture;
  beforeAll(async () => {
    m = await memoryFixture({ workspaces: ['w'] });
    await m.ok('propose_fact', { statement: 'A fact that must survive' });
  });
  afterAll(async () => {
    await m.close();
  });

  it('every tool answers every malformed argument with a result, and the server keeps serving', async () => {
    const { tools } = await m.client.listTools();
    expect(tools).toHaveLength(14);
    for (const tool of tools) {
      const names = Object.keys((tool.inputSchema.properties ?? {}) as Record<string, unknown>);
      for (const value of GARBAGE) {
        for (const name of names) {
          const result = await m.call(tool.name, { [name]: value });
          expect(Array.isArray(result.content), `${tool.name} ${name}`).toBe(true);
          if (result.isError) expect(resultText(result).length).toBeGreaterThan(0);
        }
        const whole = await m.client.callTool({
          name: tool.name,
          arguments: { unexpected: value } as Record<string, unknown>,
        });
        expect(whole).toBeDefined();
      }
    }
    const found = await m.ok<{ hits: { body: string }[] }>('search_memory', {
      query: 'fact survive',
      mode: 'keyword',
    });
    expect(found.hits.map((h) => h.body)).toContain('A fact that must survive');
  });

  it('treats search syntax as words, and a query of symbols as matching nothing', async () => {
    for (const query of ['NEAR(a b) AND * OR "x', '") OR 1=1; --', '*', '"""']) {
      const out = await m.ok<{ hits: unknown[] }>('search_memory', { query, mode: 'keyword' });
      expect(Array.isArray(out.hits)).toBe(true);
    }
    expect(await m.fails('search_memory', { query: 'x', cursor: 'not-a-cursor' })).toMatch(
      /not a cursor this server issued/,
    );
    expect(await m.fails('propose_fact', { statement: 'x', domain: '../../etc' })).toMatch(
      /not a domain name/,
    );
    expect(await m.fails('propose_fact', { statement: 'x', valid_from: 'yesterday' })).toMatch(
      /valid_from must be a UTC date/,
    );
    expect(await m.fails('search_memory', { query: 'x', as_of: '2026-13-45' })).toMatch(
      /as_of must be a UTC date/,
    );
    // Days a month does not have are refused, not rolled over into the next month.
    for (const valid_from of ['2026-02-30', '2026-02-29T10:00:00Z', '2026-04-31T23:59:59+02:00']) {
      expect(await m.fails('propose_fact', { statement: 'x', valid_from })).toMatch(
        /valid_from must be a UTC date/,
      );
    }
    expect(await m.fails('search_memory', { query: 'x', as_of: '2026-06-31' })).toMatch(
      /as_of must be a UTC date/,
    );
    const leap = await m.ok<{ fact: { validFrom: string } }>('propose_fact', {
      statement: 'leap day',
      valid_from: '2028-02-29',
    });
    expect(leap.fact.validFrom).toBe('2028-02-29T00:00:00.000Z');
  });
});
