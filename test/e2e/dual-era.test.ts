import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  dualEraClients,
  everyPage,
  MODERN_REVISION,
  modernRequest,
  resultText,
  type SpawnedHttpServer,
  spawnHttpServer,
  type ToolClient,
  toolExpectations,
} from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PACKAGES = fileURLToPath(new URL('../node_modules/', import.meta.url));
const bin = (name: string) => path.join(PACKAGES, `@toolmesh/server-${name}`, 'dist', 'index.js');

let base: string;
beforeAll(() => {
  base = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-dual-era-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const COUNT = 40;
type Page = { truncated: boolean; nextCursor?: string } & Record<string, unknown>;

/** One server as both eras meet it: how to start it on fresh state, and what to ask of it. */
interface Scenario {
  /** The bin's arguments for state under `dir`. */
  args(dir: string): string[];
  /** Writes what the calls below read, through the client under test. */
  seed?(ok: ReturnType<typeof toolExpectations>['ok']): Promise<void>;
  call: [string, Record<string, unknown>];
  /** A budgeted call that takes several pages, and the list in each page holding `COUNT` items in all. */
  page: [string, Record<string, unknown>, string];
  /** A call in the second workspace: it sees only what was written there. */
  workspace?: [string, Record<string, unknown>, (output: Record<string, unknown>) => unknown, unknown];
}

function fsRoot(dir: string): string {
  const root = path.join(dir, 'root');
  mkdirSync(path.join(root, 'many'), { recursive: true });
  for (let i = 0; i < COUNT; i++)
    writeFileSync(path.join(root, 'many', `file-${String(i).padStart(2, '0')}.txt`), `line ${i}\n`);
  return root;
}

function gitRepo(dir: string): string {
  const repo = path.join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
  git('init', '-q', '-b', 'main');
  for (let i = 0; i < COUNT; i++) {
    writeFileSync(path.join(repo, 'log.txt'), `entry ${i}\n`);
    git('add', '.');
    git('commit', '-q', '-m', `commit number ${i} with a subject long enough to need some tokens`);
  }
  return repo;
}

function codeRoot(dir: string): string {
  const root = path.join(dir, 'code');
  mkdirSync(root, { recursive: true });
  const functions = Array.from(
    { length: COUNT },
    (_, i) =>
      `/** Handles order ${i}. */\nexport function handleOrder${i}(amount: number): number {\n  return amount * ${i};\n}\n`,
  );
  writeFileSync(path.join(root, 'orders.ts'), functions.join('\n'));
  return root;
}

const opml = (count: number) =>
  `<?xml version="1.0"?><opml version="2.0"><head><title>t</title></head><body>${Array.from(
    { length: count },
    (_, i) => `<outline type="rss" text="Feed ${i}" xmlUrl="https://feeds.example.com/${i}.xml"/>`,
  ).join('')}</body></opml>`;

const db = (dir: string, name: string) => ['--db', path.join(dir, `${name}.db`)];
/** A budget that fits a few items: every paged call below takes several pages. */
const small = { maxTokens: 1000 };

const SCENARIOS: Record<string, Scenario> = {
  fs: {
    args: (dir) => [bin('fs'), '--root', fsRoot(dir)],
    call: ['read_file', { path: 'many/file-07.txt' }],
    page: ['list_dir', { path: 'many', ...small }, 'entries'],
  },
  git: {
    args: (dir) => [bin('git'), '--root', gitRepo(dir)],
    call: ['git_status', {}],
    page: ['git_history', { action: 'log', limit: COUNT, ...small }, 'commits'],
  },
  'code-graph': {
    args: (dir) => [bin('code-graph'), '--root', codeRoot(dir), '--watch', 'off', ...db(dir, 'graph')],
    // Tools answer from what is indexed so far: the call waits for the first index to finish.
    seed: async (ok) => {
      await ok('reindex', {});
    },
    call: ['code_symbol', { name: 'handleOrder7' }],
    page: ['search_code', { query: 'handle order', limit: COUNT, ...small }, 'results'],
  },
  tickets: {
    args: (dir) => [bin('tickets'), ...db(dir, 'tickets'), '--workspace', 'a', '--workspace', 'b'],
    seed: async (ok) => {
      const tickets = Array.from({ length: COUNT }, (_, i) => ({ title: `ticket ${i} for the page` }));
      await ok('create_ticket', { workspace_id: 'a', tickets });
      await ok('create_ticket', { workspace_id: 'b', tickets: [{ title: 'only in b' }] });
    },
    call: ['get_ticket', { workspace_id: 'a', ticket: 'T-3' }],
    page: ['list_tickets', { workspace_id: 'a', sort: 'number', ...small }, 'tickets'],
    workspace: [
      'list_tickets',
      { workspace_id: 'b' },
      (output) => (output.tickets as { title: string }[]).map((ticket) => ticket.title),
      ['only in b'],
    ],
  },
  memory: {
    args: (dir) => [bin('memory'), ...db(dir, 'memory'), '--workspace', 'a', '--workspace', 'b'],
    seed: async (ok) => {
      for (let i = 0; i < COUNT; i++)
        await ok('propose_policy', { workspace_id: 'a', statement: `Policy ${i}: deploys wait for review` });
      await ok('propose_policy', { workspace_id: 'b', statement: 'Only in b: releases on Fridays' });
    },
    call: ['list_memory_domains', { workspace_id: 'a' }],
    page: ['list_policies', { workspace_id: 'a', ...small }, 'policies'],
    workspace: [
      'list_policies',
      { workspace_id: 'b' },
      (output) => (output.policies as { body: string }[]).map((policy) => policy.body),
      ['Only in b: releases on Fridays'],
    ],
  },
  feeds: {
    args: (dir) => [bin('feeds'), '--no-schedule', ...db(dir, 'feeds')],
    seed: async (ok) => {
      await ok('import_opml', { opml: opml(COUNT) });
    },
    call: ['export_opml', {}],
    page: ['list_feeds', small, 'feeds'],
  },
};

type Connect = (args: string[], env: Record<string, string>) => Promise<ToolClient>;

const servers: SpawnedHttpServer[] = [];
afterAll(() => Promise.all(servers.map((server) => server.close())));
const CLIENTS = dualEraClients<Connect>({
  stdio: (era) => (args, env) => era.stdio(process.execPath, args, { env }),
  http: (era) => async (args, env) => {
    const server = await spawnHttpServer(process.execPath, args, { env });
    servers.push(server);
    const client = await era.http(server.url, {});
    const close = async () => {
      await client.close();
      await server.close();
    };
    return { ...client, close };
  },
});

describe.each(Object.entries(SCENARIOS))('%s answers both protocol eras', (name, scenario) => {
  it.each(Object.keys(CLIENTS))(
    '%s: list, call, pages with cursors, a workspace',
    async (clientName) => {
      const dir = mkdtempSync(path.join(base, `${name}-`));
      const env = { TOOLMESH_DATA_DIR: path.join(dir, 'data'), HOME: dir, REDIS_URL: '' };
      const client = await (CLIENTS[clientName] as Connect)(scenario.args(dir), env);
      try {
        const { ok } = toolExpectations(client);
        const listed = await client.listTools();
        expect(listed.tools.map((tool) => tool.name)).toContain(scenario.call[0]);
        expect(listed.tools.every((tool) => Array.isArray(tool._meta?.['toolmesh/actions']))).toBe(true);
        if (clientName.startsWith(MODERN_REVISION))
          expect({ ttlMs: listed.ttlMs, cacheScope: listed.cacheScope }).toEqual({
            ttlMs: 300_000,
            cacheScope: 'public',
          });
        else expect(listed).not.toHaveProperty('ttlMs');

        await scenario.seed?.(ok);
        const [tool, args] = scenario.call;
        const called = await client.call(tool, args);
        expect(called.isError, resultText(called)).toBeFalsy();

        const [pagedTool, pageArgs, items] = scenario.page;
        let calls = 0;
        const pages = await everyPage((more) => {
          if (++calls > 2 * COUNT) throw new Error(`${pagedTool} still had a next page after ${calls} pages`);
          return ok<Page>(pagedTool, more);
        }, pageArgs);
        expect(pages.length).toBeGreaterThan(1);
        expect(pages.flatMap((page) => page[items] as unknown[])).toHaveLength(COUNT);

        if (scenario.workspace) {
          const [scopedTool, scopedArgs, pick, expected] = scenario.workspace;
          expect(pick(await ok(scopedTool, scopedArgs))).toEqual(expected);
        }
      } finally {
        await client.close();
      }
    },
    60_000,
  );
});

const modernPost = (url: string, id: number, method: string, params: Record<string, unknown>) =>
  modernRequest<{ result?: { structuredContent?: Page; isError?: boolean } }>(url, { id, method, params });

describe(`${MODERN_REVISION} requests need no session`, () => {
  it('are answered the same by a second process of the same server on the same database', async () => {
    const dir = mkdtempSync(path.join(base, 'two-processes-'));
    const args = [bin('tickets'), ...db(dir, 'tickets'), '--workspace', 'a'];
    const env = { TOOLMESH_DATA_DIR: path.join(dir, 'data'), HOME: dir, REDIS_URL: '' };
    const first = await spawnHttpServer(process.execPath, args, { env });
    servers.push(first);
    const second = await spawnHttpServer(process.execPath, args, { env });
    servers.push(second);

    const tickets = Array.from({ length: COUNT }, (_, i) => ({ title: `ticket ${i} for two processes` }));
    const created = await modernPost(first.url, 1, 'tools/call', {
      name: 'create_ticket',
      arguments: { tickets },
    });
    expect(created.body.result?.isError).toBeFalsy();

    const list = { name: 'list_tickets', arguments: { sort: 'number', ...small } };
    const [fromFirst, fromSecond] = await Promise.all([
      modernPost(first.url, 2, 'tools/call', list),
      modernPost(second.url, 2, 'tools/call', list),
    ]);
    for (const answer of [fromFirst, fromSecond])
      expect(answer).toMatchObject({ status: 200, session: null });
    expect(fromSecond.body).toEqual(fromFirst.body);

    // The cursor one process minted is a handle the other one reads.
    const cursor = fromFirst.body.result?.structuredContent?.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const next = { name: 'list_tickets', arguments: { ...list.arguments, cursor } };
    const [nextFromFirst, nextFromSecond] = await Promise.all([
      modernPost(first.url, 3, 'tools/call', next),
      modernPost(second.url, 3, 'tools/call', next),
    ]);
    expect(nextFromSecond).toEqual(nextFromFirst);
    expect(nextFromSecond.session).toBeNull();
    const titles = (answer: typeof nextFromFirst) =>
      ((answer.body.result?.structuredContent?.tickets ?? []) as { title: string }[]).map(
        (ticket) => ticket.title,
      );
    expect(titles(nextFromSecond)[0]).not.toEqual(titles(fromFirst)[0]);
  });
});
