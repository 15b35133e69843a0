import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnStdioClient, toolExpectations } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, redisPrefix, tempDir } from './fixture.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
let dir: string;
const keys = redisPrefix();

beforeAll(() => {
  dir = tempDir('toolmesh-memory-bin-');
});
afterAll(async () => {
  await keys.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const noRedis = { REDIS_URL: '' };

describe('toolmesh-memory over real stdio', () => {
  it('serves the 14 tools with --db, --workspace, --agent and --domain-writer', async () => {
    const db = path.join(dir, 'stdio.db');
    const server = await spawnStdioClient(
      process.execPath,
      [
        BIN,
        '--db',
        db,
        '--workspace',
        'w1',
        '--agent',
        'bot',
        '--domain-writer',
        'ops=ann',
        '--log-level',
        'debug',
      ],
      { env: noRedis },
    );
    try {
      const { tools } = await server.client.listTools();
      expect(tools).toHaveLength(14);
      expect(tools.find((t) => t.name === 'remember')?._meta).toMatchObject({
        'toolmesh/actions': ['memoryWrite'],
        'toolmesh/workspaceScoped': true,
      });
      const stored = await toolExpectations(server).ok<{ fact: { id: string; author: string } }>(
        'propose_fact',
        {
          statement: 'over stdio',
        },
      );
      expect(stored.fact).toMatchObject({ id: 'F-1', author: 'bot' });
      // Pinned by --agent: a client that claims another identity in _meta still writes as bot,
      // so it can neither read ann's notes nor write in ann's domain.
      const claimed = await toolExpectations(server).asOk<{ fact: { author: string } }>(
        'ann',
        'propose_fact',
        {
          statement: 'claimed as ann',
        },
      );
      expect(claimed.fact.author).toBe('bot');
      expect(
        await toolExpectations(server).as('ann', 'propose_policy', { domain: 'ops', statement: 'x' }),
      ).toMatchObject({
        isError: true,
      });
      const domains = await toolExpectations(server).ok<{ domains: { name: string; writers: string[] }[] }>(
        'list_memory_domains',
        {},
      );
      expect(domains.domains.map((d) => [d.name, d.writers])).toEqual([
        ['general', []],
        ['ops', ['ann']],
      ]);
      expect(
        (await toolExpectations(server).ok<{ backend: string }>('remember', { text: 'hot over stdio' }))
          .backend,
      ).toBe('sqlite');
      expect(server.stderr()).toMatch(/memory in .*stdio\.db; hot memory in SQLite/);
    } finally {
      await server.close();
    }
  });

  it('refuses bad flags with a message naming them', async () => {
    const { execFile } = await import('node:child_process');
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        execFile(process.execPath, [BIN, ...args], (error, _stdout, stderr) =>
          resolve({ code: error ? (error.code as number) : 0, stderr }),
        );
      });
    // Past these, expiry instants are not dates (SQLite) nor integers Redis takes: every remember failed.
    expect((await run(['--hot-max-ttl', '99999999999999999999'])).stderr).toMatch(
      /--hot-max-ttl must be a whole number from 1 to 31536000/,
    );
    expect((await run(['--hot-max-items', '1000000000'])).stderr).toMatch(
      /--hot-max-items must be a whole number from 1 to 10000/,
    );
    expect(await run(['--hot-ttl', '0'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/--hot-ttl must be a whole number/),
    });
    expect((await run(['--embeddings-url', 'http://127.0.0.1:1/v1'])).stderr).toMatch(/go together/);
    expect((await run(['--domain-writer', 'nope'])).stderr).toMatch(/DOMAIN=IDENTITY/);
  });

  it('shares hot memory between two processes on one Redis', async () => {
    const start = (agentDb: string) =>
      spawnStdioClient(
        process.execPath,
        [
          BIN,
          '--db',
          path.join(dir, agentDb),
          '--workspace',
          'shared',
          '--agent',
          'pair',
          '--redis',
          REDIS_URL,
          '--redis-prefix',
          keys.prefix,
          '--hot-max-items',
          '5',
        ],
        {
          env: noRedis,
        },
      );
    const first = await start('one.db');
    const second = await start('two.db');
    try {
      const added = await toolExpectations(first).ok<{ backend: string; item: { id: string } }>('remember', {
        text: 'seen by both processes',
      });
      expect(added.backend).toBe('redis');
      const seen = await toolExpectations(second).ok<{ hot: { id: string; text: string }[] }>(
        'get_my_notes',
        {},
      );
      expect(seen.hot).toEqual([
        expect.objectContaining({ id: added.item.id, text: 'seen by both processes' }),
      ]);
      const again = await toolExpectations(second).ok<{ repeated: boolean; item: { recalls: number } }>(
        'remember',
        {
          text: 'seen by both processes',
        },
      );
      expect(again).toMatchObject({ repeated: true, item: { recalls: 1 } });
      const viaFirst = await toolExpectations(first).ok<{ hot: { recalls: number }[] }>('get_my_notes', {});
      expect(viaFirst.hot[0]?.recalls).toBe(1);
      // At once from both processes: one copy of a note, and never more items than the cap.
      const same = await Promise.all(
        [first, second, first, second].map((server) =>
          toolExpectations(server).ok<{ repeated: boolean }>('remember', { text: 'said by both at once' }),
        ),
      );
      expect(same.filter((out) => !out.repeated)).toHaveLength(1);
      await Promise.all(
        Array.from({ length: 12 }, (_, n) =>
          toolExpectations(n % 2 ? first : second).ok('remember', { text: `burst ${n}` }),
        ),
      );
      const held = await toolExpectations(first).ok<{ hot: { text: string }[] }>('get_my_notes', {});
      expect(held.hot).toHaveLength(5);
      expect(held.hot.map((item) => item.text)).not.toContain('seen by both processes');
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('promotes each hot item once when two processes consolidate one database at once', async () => {
    const db = path.join(dir, 'consolidate-race.db');
    const start = () =>
      spawnStdioClient(
        process.execPath,
        [BIN, '--db', db, '--workspace', 'race', '--agent', 'pair', '--hot-max-items', '400'],
        { env: noRedis },
      );
    const first = await start();
    const second = await start();
    try {
      const items = 300;
      for (let n = 0; n < items; n += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, k) =>
            toolExpectations(first).ok('remember', { text: `durable note ${n + k}`, durable: true }),
          ),
        );
      }
      type Pass = { promotedCount: number; alreadyKnownCount: number };
      // Each pass may outlast the SDK's 60-second request bound on a busy machine.
      const passes = await Promise.all(
        [first, second].map(async (server) => {
          const result = await server.client.callTool({ name: 'consolidate_memory' }, undefined, {
            timeout: 200_000,
          });
          expect(result.isError).toBeFalsy();
          return result.structuredContent as Pass;
        }),
      );
      expect(passes.reduce((sum, pass) => sum + pass.promotedCount, 0)).toBe(items);
      const facts = await toolExpectations(second).ok<{ hits: { body: string }[] }>('search_memory', {
        query: 'durable note',
        mode: 'keyword',
        include_hot: false,
        limit: 100,
        maxTokens: 64000,
      });
      expect(new Set(facts.hits.map((hit) => hit.body)).size).toBe(facts.hits.length);
    } finally {
      await first.close();
      await second.close();
    }
    // Two processes remember 300 notes and consolidate them: on two busy cores that takes far
    // longer than the default bound, and the test waits for each answer, never for a set time.
  }, 240_000);
});
