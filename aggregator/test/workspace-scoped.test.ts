import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installedFirstPartyServers } from '../src/config/first-party.js';
import { loadConfigFile, parseConfig } from '../src/config/load.js';
import type { StdioServerConfig } from '../src/config/schema.js';
import { fixture, type Harness, startHarness, TICKETS_BIN } from './harness.js';

let harness: Harness;

type Ticket = { id: string; title: string; workspace_id: string };

beforeAll(async () => {
  harness = await startHarness({});
  for (const folder of ['alpha', 'beta', 'gamma']) mkdirSync(path.join(harness.folder, folder));
  const file = path.join(harness.folder, 'toolmesh.json');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        tickets: {
          command: process.execPath,
          args: [TICKETS_BIN, '--db', 'tickets.db'],
          cwd: harness.folder,
          workspaceScoped: true,
        },
        fixture: fixture('fixture'),
      },
      workspaces: {
        alpha: { name: 'Alpha', roots: ['alpha'] },
        beta: { name: 'Beta', roots: ['beta'] },
        gamma: { name: 'Gamma', roots: ['gamma'], servers: ['fixture'] },
      },
      // Writes that would wait for a person are let through, so the test can create tickets.
      toolPolicy: { tickets__create_ticket: { requiresApproval: false } },
    }),
  );
  await harness.reload(loadConfigFile(file));
});
afterAll(() => harness.close());

describe('a workspace-scoped server', () => {
  it('runs once, told the id of each workspace it serves and no other', () => {
    const tickets = harness.aggregator.upstreams.get('tickets')?.config as StdioServerConfig;
    expect(harness.aggregator.upstreams.list().map((upstream) => upstream.name)).toEqual([
      'tickets',
      'fixture',
    ]);
    expect(tickets.args.slice(-4)).toEqual(['--workspace', 'alpha', '--workspace', 'beta']);
  });

  it("keeps each workspace's tickets to it, through bound sessions", async () => {
    const alpha = await harness.connect({ workspace: 'alpha' });
    const beta = await harness.connect({ workspace: 'beta' });
    const created = async (session: typeof alpha, title: string) => {
      const result = await session.call('tickets__create_ticket', { tickets: [{ title }] });
      expect(result.isError, resultText(result)).toBeFalsy();
      return (result.structuredContent as { tickets: Ticket[] }).tickets[0] as Ticket;
    };
    expect(await created(alpha, 'alpha leak in parser')).toMatchObject({ id: 'T-1', workspace_id: 'alpha' });
    expect(await created(beta, 'beta crash in renderer')).toMatchObject({ id: 'T-1', workspace_id: 'beta' });

    const read = async (session: typeof alpha) =>
      (await session.call('tickets__get_ticket', { ticket: 'T-1' })).structuredContent as Ticket;
    expect(await read(alpha)).toMatchObject({ title: 'alpha leak in parser', workspace_id: 'alpha' });
    expect(await read(beta)).toMatchObject({ title: 'beta crash in renderer', workspace_id: 'beta' });

    const hits = async (session: typeof alpha, query: string) =>
      ((await session.call('tickets__search_tickets', { query })).structuredContent as { hits: unknown[] })
        .hits;
    expect(await hits(alpha, 'parser')).toHaveLength(1);
    expect(await hits(beta, 'parser')).toEqual([]);
    expect(await hits(alpha, 'renderer')).toEqual([]);
    const missing = await beta.call('tickets__get_ticket', { ticket: 'T-2' });
    expect(missing.isError).toBe(true);
    expect(resultText(missing)).toMatch(/T-2 not found in workspace "beta"/);
  });

  it('sends an unbound session to the workspace it names, and refuses one the server does not serve', async () => {
    const { client, call } = await harness.connect();
    const list = (await client.listTools()).tools.find((tool) => tool.name === 'tickets__list_tickets');
    expect(list?.inputSchema.properties).toHaveProperty(
      'workspace_id',
      expect.objectContaining({ enum: ['alpha', 'beta'] }),
    );
    const titles = async (workspace_id: string) =>
      (
        (await call('tickets__list_tickets', { workspace_id })).structuredContent as { tickets: Ticket[] }
      ).tickets.map((ticket) => ticket.title);
    expect(await titles('alpha')).toEqual(['alpha leak in parser']);
    expect(await titles('beta')).toEqual(['beta crash in renderer']);
    const gamma = await call('tickets__list_tickets', { workspace_id: 'gamma' });
    expect(gamma.isError).toBe(true);
    expect(resultText(gamma)).toBe(
      'tickets does not serve workspace gamma; it serves alpha (Alpha), beta (Beta).',
    );
  });
});

describe('workspaceScoped in a config', () => {
  const upstreams = (mcpServers: Record<string, unknown>, workspaces: Record<string, unknown>) =>
    parseConfig({ mcpServers, workspaces }, { baseDir: '/srv' }).servers as Map<string, StdioServerConfig>;

  it('gives a per-workspace instance its own id, and does not run a scoped server no workspace uses', () => {
    const servers = {
      fs: { command: 'fs', perWorkspace: true, workspaceScoped: true },
      notes: { command: 'notes', workspaceScoped: true },
      plain: { command: 'plain' },
    };
    const both = upstreams(servers, { web: { roots: ['web'] }, api: { roots: ['api'], servers: ['fs'] } });
    expect(both.get('fs@web')?.args).toEqual(['--root', '/srv/web', '--workspace', 'web']);
    expect(both.get('fs@api')?.args).toEqual(['--root', '/srv/api', '--workspace', 'api']);
    expect(both.get('notes')?.args).toEqual(['--workspace', 'web']);
    expect(both.get('plain')?.args).toEqual([]);
    const unused = upstreams(servers, { api: { roots: ['api'], servers: ['fs', 'plain'] } });
    expect([...unused.keys()]).toEqual(['fs@api', 'plain']);
  });

  it('is on for the first-party tickets, memory and rigs, and off for the others', () => {
    const installed = installedFirstPartyServers();
    expect(installed.get('tickets')?.workspaceScoped).toBe(true);
    for (const [name, config] of installed) {
      expect(config.workspaceScoped, name).toBe(['tickets', 'memory', 'rigs'].includes(name));
    }
  });
});
