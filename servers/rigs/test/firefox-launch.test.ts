import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FirefoxMachine } from '../src/rigs/browser/firefox-machine.js';
import { EgressProxy } from '../src/rigs/egress/egress-proxy.js';
import { findExecutable } from '../src/rigs/find-executable.js';
import { processAlive } from '../src/rigs/process-group.js';
import { tempDir, until } from './fixture.js';

const firefox = findExecutable(['firefox-esr', 'firefox']);

/** The key a WebSocket server proves it read the client's handshake with (RFC 6455). */
const acceptKey = (key: string) =>
  createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');

/**
 * A WebDriver BiDi endpoint that takes the connection and never answers a command: a Firefox
 * whose start hung at `session.new`, as one did once under heavy load.
 */
let silent: http.Server;
const held = new Set<import('node:stream').Duplex>();

beforeAll(async () => {
  silent = http.createServer();
  silent.on('upgrade', (req, socket) => {
    held.add(socket);
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        `Sec-WebSocket-Accept: ${acceptKey(String(req.headers['sec-websocket-key']))}\r\n\r\n`,
    );
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

describe.runIf(firefox)('a Firefox start that hangs', () => {
  it('is given up at the protocol timeout, ended and started again', { timeout: 120_000 }, async () => {
    const folder = tempDir('toolmesh-rigs-hang-');
    const hungPid = path.join(folder, 'hung.pid');
    // The first start says where WebDriver BiDi listens, as Firefox does, but that endpoint is
    // the silent one; the second, which must find the first ended, runs Firefox itself.
    const wrapper = path.join(folder, 'firefox-hangs-once.sh');
    writeFileSync(
      wrapper,
      `#!/bin/sh
if [ ! -e '${hungPid}' ]; then
  echo $$ > '${hungPid}'
  echo "WebDriver BiDi listening on ws://127.0.0.1:${(silent.address() as AddressInfo).port}" >&2
  exec sleep 300
fi
hung=$(cat '${hungPid}')
if [ -d /proc/$hung ] && ! grep -q '^State:.*Z' /proc/$hung/status; then
  echo "the hung start is still running" >&2
  exit 1
fi
exec '${firefox}' "$@"
`,
      { mode: 0o700 },
    );
    const proxy = new EgressProxy({ allowedOrigins: [], allowPrivateNetwork: false });
    await proxy.start();
    // A short bound, so the hung start is given up in seconds; the real start after it is given
    // as long as a loaded machine needs (five seconds were too few with four busy loops beside).
    const machine = await FirefoxMachine.launch({
      executable: wrapper,
      folder,
      proxy,
      firstStartTimeoutMs: 5_000,
    });
    try {
      expect(existsSync(hungPid)).toBe(true);
      const [pid] = machine.processGroups();
      expect(processAlive(pid as number)).toBe(true);
      await until(() => !processAlive(Number(readFileSync(hungPid, 'utf8'))), 'the hung start to end');
    } finally {
      await machine.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
