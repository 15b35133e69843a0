import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, serveToolmesh, until } from './harness.js';

let folder: string;
let serving: ReturnType<typeof serveToolmesh>;
let base: string;

beforeAll(async () => {
  folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-ui-open-')));
  const configFile = path.join(folder, 'toolmesh.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      mcpServers: { fixture: fixture('fixture') },
      toolPolicy: { fixture__echo: { requiresApproval: true } },
      auth: { required: false },
    }),
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

  it('lets the person with the link approve a call, though every client is anonymous too', async () => {
    const link = `${base}/ui/login`;
    const form = await fetch(link, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=',
    });
    const cookie = (form.headers.get('set-cookie') as string).split(';')[0] as string;
    const { csrf } = (await (await fetch(`${base}/ui/api/me`, { headers: { cookie } })).json()) as {
      csrf: string;
    };
    // An open live stream is what makes the page's person a connected approver.
    const stream = await fetch(`${base}/ui/api/events`, { headers: { cookie } });
    const events = (stream.body as ReadableStream<Uint8Array>).getReader();
    await events.read();
    const client = await serving.connect();
    try {
      const waiting = client.call('fixture__echo', { text: 'from an open toolmesh' });
      waiting.catch(() => undefined);
      let pending: { id: string; ownCall: boolean }[] = [];
      await until(async () => {
        const queue = (await (await fetch(`${base}/ui/api/queue`, { headers: { cookie } })).json()) as {
          pending: typeof pending;
        };
        pending = queue.pending;
        return pending.length > 0;
      }, 30_000);
      const decided = await fetch(`${base}/ui/api/approvals/${pending[0]?.id}`, {
        method: 'POST',
        headers: { cookie, origin: base, 'x-csrf-token': csrf, 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'approve' }),
      });
      expect({ status: decided.status, body: await decided.json() }).toMatchObject({ status: 200 });
      // The page offers the buttons only for a call that is not the viewer's own.
      expect(pending[0]?.ownCall).toBe(false);
      expect((await waiting).isError).toBeFalsy();
    } finally {
      await events.cancel();
      await client.close();
    }
  });
});
