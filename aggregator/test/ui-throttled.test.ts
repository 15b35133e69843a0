import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, serveToolmesh } from './harness.js';

let folder: string;
let serving: ReturnType<typeof serveToolmesh>;
let base: string;

beforeAll(async () => {
  folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-ui-throttled-')));
  const configFile = path.join(folder, 'toolmesh.json');
  writeFileSync(
    configFile,
    JSON.stringify({ mcpServers: { fixture: fixture('fixture') }, auth: { requestsPerMinute: 1 } }),
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

describe('the dashboard for a token over its rate', () => {
  it('says so, and does not send the browser back to sign in', async () => {
    const link = /dashboard: (http:\/\/\S+\/ui\/login\?code=\S+)/.exec(serving.stderr())?.[1] as string;
    const signedIn = await fetch(link, { redirect: 'manual' });
    const cookie = (signedIn.headers.get('set-cookie') as string).split(';')[0] as string;
    // The minute's one request.
    expect((await fetch(`${base}/ui/api/me`, { headers: { cookie } })).status).toBe(200);
    const throttled = await fetch(`${base}/ui/api/me`, { headers: { cookie } });
    expect(throttled.status).toBe(429);
    expect(((await throttled.json()) as { error: string }).error).toMatch(/Too many requests/);
    // Still signed in: the page loads (its reads wait for the allowance), no sign-in form.
    const page = await fetch(`${base}/ui/servers`, { headers: { cookie }, redirect: 'manual' });
    expect(page.headers.get('location')).toBeNull();
    expect(page.status).toBe(200);
  });
});
