// What the dashboard shows a token limited to some workspaces: the audit records and the clients of
// those workspaces, never another's (their arguments included), through a real `toolmesh serve`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ConnectedClient, connectHttpClient } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInCookie } from './dashboard-browser.js';
import { fixture, type ServedToolmesh, serveToolmesh, TOOLMESH_BIN } from './harness.js';

let folder: string;
let serving: ServedToolmesh;
let base: string;
const tokens: Record<'operator' | 'webOnly', string> = { operator: '', webOnly: '' };
const clients: ConnectedClient[] = [];

function createToken(configFile: string, ...flags: string[]): string {
  const made = spawnSync(
    process.execPath,
    [TOOLMESH_BIN, 'token', 'create', '--config', configFile, ...flags],
    {
      cwd: folder,
      env: { ...process.env, TOOLMESH_DATA_DIR: path.join(folder, 'data') },
      encoding: 'utf8',
    },
  );
  expect(made.status, made.stdout + made.stderr).toBe(0);
  return made.stdout.split('\n').find((line) => line.startsWith('tm_')) as string;
}

const cookieFor = (token: string) => signInCookie(base, token);

async function read(cookie: string, route: string): Promise<string> {
  const response = await fetch(`${base}/ui/api/${route}`, { headers: { cookie } });
  expect(response.status, route).toBe(200);
  return response.text();
}

interface Listed {
  workspace?: string;
  identity: string;
}

beforeAll(async () => {
  folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-ui-workspaces-')));
  mkdirSync(path.join(folder, 'data'));
  for (const id of ['web', 'api']) mkdirSync(path.join(folder, id));
  const configFile = path.join(folder, 'toolmesh.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      mcpServers: { fixture: fixture('fixture') },
      workspaces: { web: { roots: ['web'] }, api: { roots: ['api'] } },
    }),
  );
  tokens.operator = createToken(configFile, '--name', 'operator', '--approver');
  tokens.webOnly = createToken(configFile, '--name', 'web-only', '--workspace', 'web');
  serving = serveToolmesh(['--config', configFile, '--transport', 'http', '--port', '0'], folder, {
    TOOLMESH_DATA_DIR: path.join(folder, 'data'),
  });
  const url = await serving.url;
  base = new URL(url).origin;
  // A call in each workspace, by clients that stay connected, so both show as sessions too.
  const web = await connectHttpClient(url, { token: tokens.webOnly });
  const api = await connectHttpClient(`${url}?workspace=api`, { token: tokens.operator });
  clients.push(web, api);
  await web.call('fixture__echo', { text: 'said in web' });
  await api.call('fixture__echo', { text: 'said in api, for the api team only' });
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  serving?.child.kill('SIGTERM');
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('a dashboard viewer limited to one workspace', () => {
  it('reads the audit of that workspace only, in the page and the export, whatever filter it asks', async () => {
    const cookie = await cookieFor(tokens.webOnly);
    const page = JSON.parse(await read(cookie, 'audit')) as { records: Listed[] };
    expect(page.records.length).toBeGreaterThan(0);
    expect(page.records.every((record) => record.workspace === 'web')).toBe(true);
    const asked = JSON.parse(await read(cookie, 'audit?workspace=api')) as { records: Listed[] };
    expect(asked.records).toEqual([]);
    const exported = await read(cookie, 'audit.jsonl');
    expect(exported).toContain('said in web');
    expect(exported).not.toContain('for the api team only');
  });

  it("lists that workspace's sessions only", async () => {
    const { sessions } = JSON.parse(await read(await cookieFor(tokens.webOnly), 'sessions')) as {
      sessions: Listed[];
    };
    expect(sessions.map((session) => [session.identity, session.workspace])).toEqual([['web-only', 'web']]);
  });

  it('while a viewer with every workspace reads them all', async () => {
    const cookie = await cookieFor(tokens.operator);
    const exported = await read(cookie, 'audit.jsonl');
    expect(exported).toContain('said in web');
    expect(exported).toContain('for the api team only');
    const { sessions } = JSON.parse(await read(cookie, 'sessions')) as { sessions: Listed[] };
    expect(sessions.map((session) => session.workspace).sort()).toEqual(['api', 'web']);
  });
});
