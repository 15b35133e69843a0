import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { connectModernHttpClient, MODERN_REVISION, resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FIXTURE_SERVER,
  FS_BIN,
  fixture,
  type Harness,
  processesTagged,
  reapTagged,
  serveFixtureOverHttp,
  serveToolmesh,
  startHarness,
  TOOLMESH_BIN,
  until,
} from './harness.js';
import { ManualClock } from './manual-clock.js';

/** A downstream server of the v2 server package that refuses 2025 clients. */
const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));
const TAG = `toolmesh-eras-test-${process.pid}`;

function modern(name: string, extra: Record<string, unknown> = {}) {
  return { command: process.execPath, args: [MODERN_SERVER, TAG], env: { FIXTURE_NAME: name }, ...extra };
}

async function serveModernOverHttp(name: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [MODERN_SERVER, '--http', TAG], {
    env: { ...process.env, FIXTURE_NAME: name },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /listening on (\S+)/.exec(stderr);
      if (found) resolve(found[1] as string);
    });
    child.once('exit', () => reject(new Error(`the modern server exited:\n${stderr}`)));
  });
  return { child, url };
}

let harness: Harness;
let dataFolder: string;
const remotes: ChildProcess[] = [];

beforeAll(async () => {
  dataFolder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-eras-'));
  const modernHttp = await serveModernOverHttp('modernhttp');
  const legacyHttp = await serveFixtureOverHttp('legacyhttp', '--http');
  remotes.push(modernHttp.child, legacyHttp.child);
  harness = await startHarness({
    mcpServers: {
      modern: modern('modern'),
      legacy: fixture('legacy', { args: [FIXTURE_SERVER, TAG] }),
      modernhttp: { url: modernHttp.url },
      legacyhttp: { url: legacyHttp.url },
      // A first-party server answers both eras: toolmesh speaks the newest, unless told 2025.
      dual: {
        command: process.execPath,
        args: [FS_BIN, '--root', dataFolder],
        env: { TOOLMESH_DATA_DIR: dataFolder },
      },
      pinned: {
        command: process.execPath,
        args: [FS_BIN, '--root', dataFolder],
        env: { TOOLMESH_DATA_DIR: dataFolder },
        protocol: '2025',
      },
      strict: fixture('strict', {
        args: [FIXTURE_SERVER, TAG],
        env: { FIXTURE_NAME: 'strict', FIXTURE_ENDS_AT_PROBE: '1' },
      }),
    },
  });
  // Six servers start at once on a machine shared with other work.
}, 120_000);

afterAll(async () => {
  await harness?.close();
  for (const child of remotes) child.kill();
  reapTagged(TAG);
  rmSync(dataFolder, { recursive: true, force: true });
});

describe('downstream servers of either era behind toolmesh', () => {
  it('are each connected in the newest revision they answer', () => {
    const versionOf = (name: string) => harness.aggregator.upstreams.get(name)?.protocolVersion;
    for (const name of ['modern', 'legacy', 'modernhttp', 'legacyhttp', 'dual', 'pinned'])
      expect(harness.aggregator.upstreams.get(name)?.state, name).toBe('ready');
    expect(versionOf('modern')).toBe(MODERN_REVISION);
    expect(versionOf('modernhttp')).toBe(MODERN_REVISION);
    expect(versionOf('legacy')).toMatch(/^2025-/);
    expect(versionOf('legacyhttp')).toMatch(/^2025-/);
    expect(harness.aggregator.upstreams.get('modern')?.era).toBe('modern');
    expect(harness.aggregator.upstreams.get('legacy')?.era).toBe('legacy');
    expect(versionOf('dual')).toBe(MODERN_REVISION);
    expect(versionOf('pinned')).toMatch(/^2025-/);
  });

  it('include a 2025 server that ends at the server/discover probe: it is started again and initialized', async () => {
    const strict = harness.aggregator.upstreams.get('strict');
    expect(strict?.state).toBe('ready');
    expect(strict?.era).toBe('legacy');
    expect(
      harness.logs.some(
        (line) => line.includes('[strict]') && line.includes('ended at its server/discover probe'),
      ),
    ).toBe(true);
    const client = await harness.connect();
    expect(resultText(await client.call('strict__echo', { text: 'hi' }))).toBe('strict: hi');
  });

  it('are listed and called by a 2025 client through toolmesh', async () => {
    const client = await harness.connect();
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    for (const server of ['modern', 'legacy', 'modernhttp', 'legacyhttp']) {
      expect(names).toContain(`${server}__echo`);
      expect(resultText(await client.call(`${server}__echo`, { text: 'hi' }))).toBe(`${server}: hi`);
    }
    // The caller's identity reaches a modern server in the request _meta as it reaches a legacy one.
    expect(resultText(await client.call('modern__whoami'))).not.toBe('nobody');
  });

  it("send a modern stdio server's plain calls past the SDK's client, with the envelope it would send", async () => {
    const client = await harness.connect();
    const seen = (server: string) =>
      client.call(`${server}__request_seen`).then((result) => JSON.parse(resultText(result)));
    const direct = await seen('modern');
    const throughSdk = await seen('modernhttp');
    // toolmesh's own calls are numbered as strings; the SDK's client numbers its requests.
    expect(direct.id).toMatch(/^toolmesh-\d+$/);
    expect(typeof throughSdk.id).toBe('number');
    expect(direct.envelope).toEqual(throughSdk.envelope);
    expect(direct.envelope).toMatchObject({
      'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
      'io.modelcontextprotocol/clientInfo': { name: 'toolmesh' },
    });
  });

  it("relay a modern-only server's elicitation to a 2025 client, and its answer back with the server's state", async () => {
    const client = await harness.connect({ capabilities: { elicitation: {}, sampling: {} } });
    const asked: unknown[] = [];
    client.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { colour: 'blue' } };
    });
    client.client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      model: 'test-model',
      content: { type: 'text', text: 'hello' },
    }));
    // Over stdio and over Streamable HTTP the round trip is the server's input_required result.
    expect(resultText(await client.call('modern__ask_user'))).toBe('accept: blue (state asked-colour)');
    expect(resultText(await client.call('modernhttp__ask_user'))).toBe('accept: blue (state asked-colour)');
    expect(asked).toEqual(['Favourite colour?', 'Favourite colour?']);
    expect(resultText(await client.call('modern__ask_model'))).toBe('model said: hello');
    // A legacy server's elicitation still arrives as its own request.
    expect(resultText(await client.call('legacy__ask_user'))).toBe('accept: blue');
  });

  it("run a modern server's first round once: its question is answered, not asked again", async () => {
    const client = await harness.connect({ capabilities: { elicitation: {} } });
    client.client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { colour: 'blue' },
    }));
    // Over stdio the first answer is taken past the SDK's client and handed to its rounds.
    expect(resultText(await client.call('modern__ask_counted'))).toBe('accept, asked 1 time(s)');
    expect(resultText(await client.call('modernhttp__ask_counted'))).toBe('accept, asked 1 time(s)');
  });

  it("refuse a modern-only server's elicitation clearly when the client cannot answer it", async () => {
    const client = await harness.connect();
    const result = await client.call('modern__ask_user').catch((error: Error) => error);
    const said = result instanceof Error ? result.message : resultText(result);
    expect(said).toMatch(/does not support elicitation/);
  });

  it("hear a modern server's list changes and resource updates on its subscriptions/listen stream", async () => {
    const client = await harness.connect();
    await client.call('modern__add_tool', { tool: 'extra' });
    await until(async () => (await client.listTools()).tools.some((tool) => tool.name === 'modern__extra'));
    expect(resultText(await client.call('modern__extra'))).toBe('extra');

    const updated: string[] = [];
    client.client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => {
      updated.push(notification.params.uri);
    });
    await client.client.subscribeResource({ uri: 'modern://readme' });
    await client.call('modern__edit_readme', { text: 'changed' });
    await until(() => updated.includes('modern://readme'));
    const read = await client.client.readResource({ uri: 'modern://readme' });
    expect(read.contents[0]).toMatchObject({ text: 'changed' });
  });
});

describe('toolmesh doctor', () => {
  it('says which revision each server speaks', async () => {
    const configFile = path.join(harness.folder, 'doctor.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        mcpServers: { modern: modern('modern'), legacy: fixture('legacy', { args: [FIXTURE_SERVER, TAG] }) },
      }),
    );
    const doctor = await promisify(execFile)(
      process.execPath,
      [TOOLMESH_BIN, 'doctor', '--config', configFile],
      {
        cwd: harness.folder,
        env: { ...process.env, TOOLMESH_DATA_DIR: path.join(harness.folder, 'doctor-data') },
      },
    );
    expect(doctor.stdout).toMatch(/^ok\s+modern: \d+ tools, MCP 2026-07-28 \(stateless\)$/m);
    expect(doctor.stdout).toMatch(/^ok\s+legacy: \d+ tools, MCP 2025-\d\d-\d\d \(2025, sessions\)$/m);
  });
});

describe('the health of a modern-only server', () => {
  it('is checked with server/discover, as 2026-07-28 has no ping, and a stalled one is restarted', async () => {
    const clock = new ManualClock();
    const tag = `${TAG}-ping`;
    const pinged = await startHarness(
      { mcpServers: { modern: modern('modern', { args: [MODERN_SERVER, tag] }) } },
      { pingIntervalMs: 30_000, pingTimeoutMs: 1000, clock },
    );
    const [pid] = processesTagged(tag);
    try {
      const upstream = pinged.aggregator.upstreams.get('modern');
      expect(upstream?.era).toBe('modern');
      expect(clock.delays()).toEqual([30_000]);
      clock.advance(30_000);
      // Answered: the next check is set, and the server stays ready.
      await until(() => clock.delays().length === 1);
      expect(upstream?.state).toBe('ready');
      process.kill(pid as number, 'SIGSTOP');
      clock.advance(30_000);
      await until(() => upstream?.state === 'restarting');
      expect(upstream?.lastError).toMatch(/^ping failed: .*timed out/);
    } finally {
      if (pid) process.kill(pid, 'SIGCONT');
      await pinged.close();
      reapTagged(tag);
    }
  });
});

describe('a 2026-07-28 client through toolmesh', () => {
  it('calls a modern-only and a legacy-only downstream server', async () => {
    const configFile = path.join(harness.folder, 'eras.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        mcpServers: { modern: modern('modern'), legacy: fixture('legacy', { args: [FIXTURE_SERVER, TAG] }) },
      }),
    );
    const serving = serveToolmesh(
      ['--config', configFile, '--transport', 'http', '--port', '0'],
      harness.folder,
      {
        TOOLMESH_DATA_DIR: path.join(harness.folder, 'eras-data'),
      },
    );
    try {
      const client = await connectModernHttpClient(await serving.url, { token: await serving.token });
      expect(client.client.getNegotiatedProtocolVersion()).toBe(MODERN_REVISION);
      const echoed = await client.call('modern__echo', { text: 'a' });
      expect(resultText(echoed)).toBe('modern: a');
      // The client is answered by toolmesh: the server behind it is not named as the one answering.
      const answering = (answer: { _meta?: Record<string, unknown> }) =>
        answer._meta?.['io.modelcontextprotocol/serverInfo'];
      expect(answering(echoed)).toMatchObject({ name: 'toolmesh' });
      expect(answering(await client.client.readResource({ uri: 'modern://readme' }))).toMatchObject({
        name: 'toolmesh',
      });
      expect(resultText(await client.call('legacy__echo', { text: 'b' }))).toBe('legacy: b');
      await client.close();
    } finally {
      serving.child.kill();
    }
  });
});
