import { randomUUID } from 'node:crypto';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SERVER, processesTagged, reapTagged, serveToolmesh, until } from './harness.js';

let folder: string;
let holder: net.Server;
let port: number;
beforeAll(async () => {
  folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-busy-port-')));
  holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  port = (holder.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => holder.close(resolve));
  rmSync(folder, { recursive: true, force: true });
});

describe('toolmesh serve --transport http on a port another process holds', () => {
  it('says which address is taken and what to pass instead, ends its servers and exits non-zero', async () => {
    const tag = `tag-${randomUUID()}`;
    const config = path.join(folder, 'toolmesh.json');
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { one: { command: process.execPath, args: [FIXTURE_SERVER, tag] } } }),
    );
    const serving = serveToolmesh(
      ['--config', config, '--transport', 'http', '--port', String(port)],
      folder,
    );
    serving.url.catch(() => undefined);
    serving.token.catch(() => undefined);
    try {
      const code = await new Promise<number | null>((resolve) => serving.child.once('exit', resolve));
      expect(code).toBe(1);
      expect(serving.stderr()).toContain(
        `toolmesh: 127.0.0.1:${port} is already in use by another process: pass --port with another number, or --port 0 for a free one`,
      );
      expect(serving.stderr()).not.toContain('TypeError');
      await until(() => processesTagged(tag).length === 0);
    } finally {
      serving.child.kill('SIGKILL');
      reapTagged(tag);
    }
  });
});
