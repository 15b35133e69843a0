import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, serveToolmesh } from './harness.js';

let folder: string;
let serving: ReturnType<typeof serveToolmesh>;
let base: string;

beforeAll(async () => {
  folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-ui-open-')));
  const configFile = path.join(folder, 'toolmesh.json');
  writeFileSync(
    configFile,
    JSON.stringify({ mcpServers: { fixture: fixture('fixture') }, auth: { required: false } }),
  );
  serving = serveToolmesh(['--config', configFile, '--transport', 'http', '--port', '0'], folder, {
    TOOLMESH_DATA_DIR: path.join(folder, 'data'),
  });
  base = (await serving.url).replace(/\/mcp$/, '');
});

afterAll(() => {
  serving?.child.kill('SIGTERM');
  rmSync(folder, { recursive: true, force: true });
});

describe('the dashboard with authentication off', () => {
  it('still needs a session: the printed link, or the form without a token', async () => {
    expect((await fetch(`${base}/ui/api/servers`)).status).toBe(401);
    const link = /dashboard: (http:\/\/\S+\/ui\/login\?code=\S+)/.exec(serving.stderr())?.[1] as string;
    const signedIn = await fetch(link, { redirect: 'manual' });
    expect(signedIn.status).toBe(303);
    const cookie = (signedIn.headers.get('set-cookie') as string).split(';')[0] as string;
    const me = await fetch(`${base}/ui/api/me`, { headers: { cookie } });
    expect(await me.json()).toMatchObject({ identity: 'anonymous', approver: true });

    const form = await fetch(`${base}/ui/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=',
    });
    expect(form.status).toBe(303);
    const foreign = await fetch(`${base}/ui/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: 'http://localhost:1', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=',
    });
    expect(foreign.status).toBe(403);
  });
});
