import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/load.js';
import { FS_BIN, fixture, type Harness, startHarness } from './harness.js';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({});
  const alpha = path.join(harness.folder, 'alpha');
  const beta = path.join(harness.folder, 'beta');
  mkdirSync(alpha);
  mkdirSync(beta);
  writeFileSync(path.join(alpha, 'where.txt'), 'in alpha\n');
  writeFileSync(path.join(beta, 'where.txt'), 'in beta\n');
  await harness.reload(
    parseConfig(
      {
        mcpServers: {
          fs: {
            command: process.execPath,
            args: [FS_BIN],
            env: { TOOLMESH_DATA_DIR: path.join(harness.folder, '.data') },
            perWorkspace: true,
          },
          fixture: fixture('fixture'),
        },
        workspaces: {
          alpha: { name: 'Alpha', roots: ['alpha'] },
          beta: { name: 'Beta', roots: ['beta'], servers: ['fs'] },
        },
      },
      { baseDir: harness.folder },
    ),
  );
});
afterAll(() => harness.close());

function schemaOf(
  tools: { name: string; inputSchema: { properties?: object; required?: string[] } }[],
  name: string,
) {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`${name} is not listed`);
  return tool.inputSchema;
}

describe('workspaces', () => {
  it('run a per-workspace server once per workspace, on its roots, as one set of tools', () => {
    const upstreams = harness.aggregator.upstreams.list().map((upstream) => upstream.name);
    expect(upstreams).toEqual(['fs@alpha', 'fs@beta', 'fixture']);
    const names = harness.aggregator.registry.tools().map((entry) => entry.exposed);
    expect(names.filter((name) => name === 'fs__read_file')).toHaveLength(1);
  });

  it('list the tools of a per-workspace server under its configured name, which list_my_tools takes', async () => {
    const { call } = await harness.connect();
    const listed = await call('list_my_tools', { server: 'fs' });
    expect(listed.isError, resultText(listed)).toBeFalsy();
    const groups = (listed.structuredContent as { servers: { server: string }[] }).servers;
    expect(groups.map((group) => group.server)).toEqual(['fs']);
    expect(resultText(await call('list_my_tools', { server: 'fs@alpha' }))).toMatch(
      /No server named fs@alpha\. Servers: fs, fixture\./,
    );
  });

  it('give a bound session schemas without workspace_id, and add its id to each call', async () => {
    const { client, call } = await harness.connect({ workspace: 'beta' });
    const schema = schemaOf((await client.listTools()).tools, 'fs__read_file');
    expect(schema.properties).not.toHaveProperty('workspace_id');
    expect(schema.required ?? []).not.toContain('workspace_id');
    expect(resultText(await call('fs__read_file', { path: 'where.txt' }))).toContain('in beta');
    expect(resultText(await call('fs__read_file', { path: 'where.txt', workspace_id: 'beta' }))).toContain(
      'in beta',
    );
  });

  it("reject a bound session's call that names another workspace, never rewriting it", async () => {
    const { call } = await harness.connect({ workspace: 'beta' });
    const foreign = await call('fs__read_file', { path: 'where.txt', workspace_id: 'alpha' });
    expect(foreign.isError).toBe(true);
    expect(resultText(foreign)).toBe(
      'workspace_id "alpha" is not this session\'s workspace: this session works in beta only, so leave workspace_id out.',
    );
  });

  it('make a session that can address several workspaces name one, listing the valid ids', async () => {
    const { client, call } = await harness.connect();
    const schema = schemaOf((await client.listTools()).tools, 'fs__read_file');
    expect(schema.required).toContain('workspace_id');
    expect(schema.properties).toHaveProperty(
      'workspace_id',
      expect.objectContaining({ enum: ['alpha', 'beta'] }),
    );
    const missing = await call('fs__read_file', { path: 'where.txt' });
    expect(missing.isError).toBe(true);
    expect(resultText(missing)).toBe('fs__read_file needs workspace_id: one of alpha (Alpha), beta (Beta).');
    const unknown = await call('fs__read_file', { path: 'where.txt', workspace_id: 'gamma' });
    expect(resultText(unknown)).toBe(
      'Unknown workspace_id "gamma": the workspaces are alpha (Alpha), beta (Beta).',
    );
    expect(resultText(await call('fs__read_file', { path: 'where.txt', workspace_id: 'alpha' }))).toContain(
      'in alpha',
    );
    expect(resultText(await call('fs__read_file', { path: 'where.txt', workspace_id: 'beta' }))).toContain(
      'in beta',
    );
  });

  it("keep each instance on its workspace's roots, whatever roots a client has open", async () => {
    const { client, call } = await harness.connect({ capabilities: { roots: { listChanged: true } } });
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: [{ uri: 'file:///srv/client-project', name: 'client-project' }],
    }));
    await client.sendRootsListChanged();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const read = await call('fs__read_file', { path: 'where.txt', workspace_id: 'alpha' });
    expect(read.isError).toBeFalsy();
    expect(resultText(read)).toContain('in alpha');
  });

  it('leave tools that are not workspace-scoped alone', async () => {
    const { client, call } = await harness.connect();
    const schema = schemaOf((await client.listTools()).tools, 'fixture__echo');
    expect(schema.properties).not.toHaveProperty('workspace_id');
    expect(resultText(await call('fixture__echo', { text: 'hi' }))).toBe('fixture: hi');
  });

  it('are listed by list_workspaces, as the session may use them', async () => {
    const unbound = await harness.connect();
    const all = (await unbound.call('list_workspaces', {})).structuredContent as {
      workspaces: { id: string; servers: string[]; roots: string[] }[];
    };
    expect(all.workspaces.map((workspace) => [workspace.id, workspace.servers])).toEqual([
      ['alpha', ['fs', 'fixture']],
      ['beta', ['fs']],
    ]);
    expect(all.workspaces[0]?.roots).toEqual([path.join(harness.folder, 'alpha')]);
    const bound = await harness.connect({ workspace: 'alpha' });
    expect((await bound.call('list_workspaces', {})).structuredContent).toMatchObject({
      bound: 'alpha',
      workspaces: [{ id: 'alpha' }],
    });
  });
});

describe('workspace config', () => {
  it('is one workspace at the folder toolmesh runs in when the config names none', () => {
    const { workspaces } = parseConfig({}, { defaultRoot: '/srv/project' });
    expect(workspaces).toEqual([{ id: 'default', name: 'project', roots: ['/srv/project'] }]);
  });

  it('refuses a workspace that names a server that is not configured', () => {
    expect(() => parseConfig({ workspaces: { web: { roots: ['.'], servers: ['gti'] } } })).toThrow(
      /workspaces\.web\.servers: "gti" is not a configured server/,
    );
    expect(() => parseConfig({ workspaces: { web: { roots: [] } } })).toThrow(/workspaces\.web\.roots/);
  });
});
