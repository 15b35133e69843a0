import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  dualEraClients,
  everyPage,
  MODERN_REVISION,
  modernRequest,
  resultText,
  type SpawnedHttpServer,
  type ToolClient,
  toolExpectations,
} from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveToolmeshHttp, TICKETS_BIN, TOOLMESH_BIN } from './harness.js';

// toolmesh's front as each era meets it, over real stdio and real HTTP, in front of a real
// tickets server: list, call, pages with cursors, a workspace; then a 2026-07-28 request
// carried to a second toolmesh process on the same config and state.

const COUNT = 30;
type Page = { truncated: boolean; nextCursor?: string; tickets: { title: string }[] };

let base: string;
beforeAll(() => {
  base = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-front-eras-'));
});
const servers: SpawnedHttpServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  rmSync(base, { recursive: true, force: true });
});

/** A folder with a config of one workspace-scoped tickets server in workspaces alpha and beta. */
function setUp(name: string) {
  const folder = mkdtempSync(path.join(base, `${name}-`));
  for (const workspace of ['alpha', 'beta']) mkdirSync(path.join(folder, workspace));
  const config = path.join(folder, 'toolmesh.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        tickets: {
          command: process.execPath,
          args: [TICKETS_BIN, '--db', 'tickets.db'],
          cwd: folder,
          workspaceScoped: true,
        },
      },
      workspaces: { alpha: { roots: ['alpha'] }, beta: { roots: ['beta'] } },
      toolPolicy: { tickets__create_ticket: { requiresApproval: false } },
    }),
  );
  const env = { TOOLMESH_DATA_DIR: path.join(folder, 'data'), HOME: folder, REDIS_URL: '' };
  return { folder, config, env };
}

async function serveHttp(config: string, folder: string, env: Record<string, string>) {
  const served = await serveToolmeshHttp(config, folder, env);
  servers.push(served.server);
  return served;
}

type Connect = (setup: ReturnType<typeof setUp>, workspace?: string) => Promise<ToolClient>;

const stdioArgs = (config: string, workspace?: string) => [
  TOOLMESH_BIN,
  'serve',
  '--config',
  config,
  ...(workspace ? ['--workspace', workspace] : []),
];

const CLIENTS = dualEraClients<Connect>({
  stdio:
    (era) =>
    ({ config, folder, env }, workspace) =>
      era.stdio(process.execPath, stdioArgs(config, workspace), { env, cwd: folder }),
  http:
    (era) =>
    async ({ config, folder, env }, workspace) => {
      const { server, token } = await serveHttp(config, folder, env);
      return era.http(workspace ? `${server.url}?workspace=${workspace}` : server.url, {
        ...(token && { token }),
      });
    },
});

describe.each(Object.keys(CLIENTS))('toolmesh to a %s client', (clientName) => {
  const connect = CLIENTS[clientName] as Connect;
  const modern = clientName.startsWith(MODERN_REVISION);

  it('lists, calls, pages with cursors and keeps a bound workspace to itself', async () => {
    const setup = setUp(clientName.replace(/\W+/g, '-'));
    const client = await connect(setup);
    try {
      const { ok } = toolExpectations(client);
      const listed = await client.listTools();
      expect(listed.tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['tickets__list_tickets', 'search_tool_bm25', 'todo_write']),
      );
      if (modern)
        expect({ ttlMs: listed.ttlMs, cacheScope: listed.cacheScope }).toEqual({
          ttlMs: 30_000,
          cacheScope: 'private',
        });
      else expect(listed).not.toHaveProperty('ttlMs');

      const tickets = Array.from({ length: COUNT }, (_, i) => ({ title: `alpha ticket ${i} for the page` }));
      await ok('tickets__create_ticket', { workspace_id: 'alpha', tickets });
      await ok('tickets__create_ticket', { workspace_id: 'beta', tickets: [{ title: 'only in beta' }] });
      const got = await ok<{ title: string }>('tickets__get_ticket', {
        workspace_id: 'alpha',
        ticket: 'T-3',
      });
      expect(got.title).toBe('alpha ticket 2 for the page');

      let calls = 0;
      const pages = await everyPage(
        (more) => {
          if (++calls > 2 * COUNT) throw new Error(`still a next page after ${calls} pages`);
          return ok<Page>('tickets__list_tickets', more);
        },
        { workspace_id: 'alpha', sort: 'number', maxTokens: 1000 },
      );
      expect(pages.length).toBeGreaterThan(1);
      expect(pages.flatMap((page) => page.tickets)).toHaveLength(COUNT);

      await ok('todo_write', { todos: [{ content: 'Read the beta ticket', status: 'pending' }] });
      expect(await ok('todo_read', {})).toEqual({
        todos: [{ content: 'Read the beta ticket', status: 'pending' }],
      });
    } finally {
      await client.close();
    }

    // Bound to beta (by `--workspace` over stdio, `?workspace=` over HTTP), calls need no workspace_id.
    const bound = await connect(setup, 'beta');
    try {
      const listed = await toolExpectations(bound).ok<Page>('tickets__list_tickets', {});
      expect(listed.tickets.map((ticket) => ticket.title)).toEqual(['only in beta']);
      const refused = await bound.call('tickets__list_tickets', { workspace_id: 'alpha' });
      expect(refused.isError, resultText(refused)).toBe(true);
    } finally {
      await bound.close();
    }
  }, 120_000);
});

interface ToolAnswer {
  result?: { structuredContent?: Record<string, unknown>; isError?: boolean };
  error?: { message: string };
}

describe(`${MODERN_REVISION} requests to toolmesh need no session`, () => {
  it('are answered the same by a second toolmesh on the same config and state', async () => {
    const { config, folder, env } = setUp('two-processes');
    const first = await serveHttp(config, folder, env);
    const second = await serveHttp(config, folder, env);
    // The first-start token lives in the data directory: both processes know it.
    expect(second.token).toBe(first.token);
    const post = (to: typeof first, id: number, method: string, params: Record<string, unknown>) =>
      modernRequest<ToolAnswer>(to.server.url, { id, method, params, ...(to.token && { token: to.token }) });

    const tickets = Array.from({ length: COUNT }, (_, i) => ({ title: `ticket ${i} for two processes` }));
    const created = await post(first, 1, 'tools/call', {
      name: 'tickets__create_ticket',
      arguments: { workspace_id: 'alpha', tickets },
    });
    expect(created.body.result?.isError, JSON.stringify(created.body)).toBeFalsy();
    const todos = { todos: [{ content: 'Carry on in the other process', status: 'in_progress' }] };
    await post(first, 2, 'tools/call', { name: 'todo_write', arguments: todos });

    const list = {
      name: 'tickets__list_tickets',
      arguments: { workspace_id: 'alpha', sort: 'number', maxTokens: 1000 },
    };
    const [fromFirst, fromSecond] = await Promise.all([
      post(first, 3, 'tools/call', list),
      post(second, 3, 'tools/call', list),
    ]);
    for (const answer of [fromFirst, fromSecond])
      expect(answer).toMatchObject({ status: 200, session: null });
    expect(fromSecond.body).toEqual(fromFirst.body);

    // The cursor one process passed on is a handle the other one continues from.
    const cursor = fromFirst.body.result?.structuredContent?.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const next = { ...list, arguments: { ...list.arguments, cursor } };
    const [nextFromFirst, nextFromSecond] = await Promise.all([
      post(first, 4, 'tools/call', next),
      post(second, 4, 'tools/call', next),
    ]);
    expect(nextFromSecond).toEqual(nextFromFirst);

    // The todo list is the principal's: the second process reads what the first one wrote.
    const read = await post(second, 5, 'tools/call', { name: 'todo_read', arguments: {} });
    expect(read).toMatchObject({ status: 200, session: null });
    expect(read.body.result?.structuredContent).toEqual(todos);
  }, 120_000);
});
