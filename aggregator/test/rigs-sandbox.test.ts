import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBwrap } from '../src/sandbox/find-bwrap.js';
import { type Harness, startHarness, TOOLMESH_BIN } from './harness.js';

/** The built rigs server, run sandboxed behind the aggregator over real stdio. */
const RIGS_BIN = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@toolmesh/server-rigs/package.json')),
  'dist',
  'index.js',
);

let harness: Harness;
let page: http.Server;
let origin: string;

beforeAll(async () => {
  const bwrap = findBwrap();
  if (!bwrap.available) {
    throw new Error(
      `this test needs a working bubblewrap: install it (apt-get install bubblewrap). ${bwrap.reason}`,
    );
  }
  page = http.createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end(
      // Text is laid out with the fonts fontconfig finds: with none, the line has no width.
      '<title>Inside the sandbox</title><h1>Sandboxed Chromium</h1><button>Press</button><span id="text">Hello, fonts</span><p id="width"></p><script>document.getElementById("width").textContent = "text width " + document.getElementById("text").getBoundingClientRect().width.toFixed(0)</script>',
    ),
  );
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
  harness = await startHarness({});
  const data = path.join(harness.folder, 'data');
  mkdirSync(data, { recursive: true });
  await harness.reload(
    (await import('../src/config/load.js')).parseConfig({
      mcpServers: {
        rigs: {
          command: process.execPath,
          args: [RIGS_BIN, '--allow-origin', origin],
          env: { TOOLMESH_DATA_DIR: data },
          sandbox: 'required',
          // The page is on the host's loopback, which only the host's network namespace reaches.
          network: true,
        },
      },
    }),
  );
});

afterAll(async () => {
  await harness?.close();
  if (page) await new Promise((resolve) => page.close(resolve));
});

describe('rigs in the aggregator’s bubblewrap sandbox', () => {
  it('starts a Chromium rig, says why it runs without Chromium’s own sandbox, and closes it', {
    timeout: 120_000,
  }, async () => {
    const { call } = await harness.connect({ mode: 'chat' });
    const opened = await call('rigs__browser_use', { action: 'navigate', url: `${origin}/` });
    expect(opened.isError, resultText(opened)).toBeFalsy();
    expect(resultText(opened)).toContain('title: Inside the sandbox');
    const snapshot = await call('rigs__browser_use', { action: 'snapshot' });
    expect(resultText(snapshot)).toMatch(/button "Press" \[ref=e\d+\]/);
    expect(resultText(snapshot)).toMatch(/text width [1-9]\d*/);
    const listed = (await call('rigs__rig_list', {})).structuredContent as {
      rigs: { id: string; notes: string[] }[];
    };
    expect(listed.rigs).toHaveLength(1);
    expect(listed.rigs[0]?.notes.join(' ')).toMatch(/--no-sandbox: (running as root|inside bubblewrap)/);
    const closed = await call('rigs__rig_close', { rig_id: listed.rigs[0]?.id });
    expect(closed.isError, resultText(closed)).toBeFalsy();
    expect(((await call('rigs__rig_list', {})).structuredContent as { rigs: unknown[] }).rigs).toEqual([]);
  });

  it('starts a desktop rig and shows an X app’s window', { timeout: 120_000 }, async () => {
    const { call } = await harness.connect({ mode: 'chat' });
    const launched = await call('rigs__computer_use', {
      action: 'launch',
      argv: ['xmessage', 'inside bwrap'],
    });
    expect(launched.isError, resultText(launched)).toBeFalsy();
    expect(resultText(launched)).toMatch(/xmessage/);
    expect(resultText(launched)).not.toMatch(/showed no window|exited at once/);
    const shot = await call('rigs__computer_use', { action: 'screenshot' });
    expect((shot.content as { type: string }[]).filter((part) => part.type === 'image')).toHaveLength(1);
    const { rigs } = (await call('rigs__rig_list', {})).structuredContent as { rigs: { id: string }[] };
    await call('rigs__rig_close', { rig_id: rigs[0]?.id });
  });
});

describe('the font configuration in a sandbox', () => {
  it('is there, read-only: fontconfig finds its config and its cache', () => {
    const listed = spawnSync(
      process.execPath,
      [
        TOOLMESH_BIN,
        'sandbox',
        '--',
        'sh',
        '-c',
        'test -r /etc/fonts/fonts.conf && ls /var/cache/fontconfig && touch /etc/fonts/x',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(listed.stdout).toMatch(/\.cache-\d+/);
    expect(listed.stderr).toMatch(/Read-only file system/);
  });
});
