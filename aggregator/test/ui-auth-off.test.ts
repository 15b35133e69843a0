import { execFile } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, serveToolmesh, TOOLMESH_BIN, until } from './harness.js';

const exec = promisify(execFile);
let folder: string;
let configFile: string;
let serving: ReturnType<typeof serveToolmesh>;
let base: string;

beforeAll(async () => {
  folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-ui-open-')));
  configFile = path.join(folder, 'toolmesh.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      mcpServers: {
        fixture: fixture('fixture'),
        broken: { command: path.join(folder, 'no-such-server') },
      },
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

/** Signs in through the form, which takes no token here, as a browser would. */
async function signIn(): Promise<string> {
  const form = await fetch(`${base}/ui/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'token=',
  });
  return (form.headers.get('set-cookie') as string).split(';')[0] as string;
}

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
    const cookie = await signIn();
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
      });
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

  it('shows a server that fails with the fix toolmesh doctor gives', async () => {
    const cookie = await signIn();
    const servers = async () =>
      (
        (await (await fetch(`${base}/ui/api/servers`, { headers: { cookie } })).json()) as {
          replicas: { servers: { name: string; state: string; lastError?: string; fix?: string }[] }[];
        }
      ).replicas.flatMap((replica) => replica.servers);
    let broken: { state: string; lastError?: string; fix?: string } | undefined;
    await until(async () => {
      broken = (await servers()).find((server) => server.name === 'broken');
      return broken?.lastError !== undefined;
    });
    const doctor = await exec(process.execPath, [TOOLMESH_BIN, 'doctor', '--config', configFile], {
      cwd: folder,
      env: { ...process.env, TOOLMESH_DATA_DIR: path.join(folder, 'data') },
    }).catch((failed: { stdout: string }) => failed);
    expect(broken?.fix).toContain('does not exist: correct "command" in the config');
    expect(doctor.stdout).toContain(broken?.fix);
    expect((await servers()).find((server) => server.name === 'fixture')?.fix).toBeUndefined();
  });
});
