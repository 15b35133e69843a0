import { type ChildProcess, execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { resultText, spawnStdioClient } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/load.js';
import {
  FIXTURE_SERVER,
  fixture,
  type Harness,
  processesTagged,
  reapTagged,
  STUBBORN_SERVER,
  serveToolmesh,
  startHarness,
  TOOLMESH_BIN,
  until,
} from './harness.js';

let scratch: Harness;
beforeAll(async () => {
  scratch = await startHarness({});
});
afterAll(() => scratch.close());

/**
 * A fixture server that answers initialize only once the test opens its gate (creates the file),
 * tagged so its processes can be found. Until then it does not read its stdin either.
 */
function gated(name: string, tag: string, extra: Record<string, unknown> = {}) {
  const gate = path.join(scratch.folder, `gate-${tag}`);
  const server = fixture(name, {
    args: [FIXTURE_SERVER, tag],
    env: { FIXTURE_NAME: name, FIXTURE_READY_WHEN: gate },
    ...extra,
  });
  return { server, open: () => writeFileSync(gate, '') };
}

function writeConfig(name: string, config: Record<string, unknown>): string {
  const file = path.join(scratch.folder, name);
  writeFileSync(file, JSON.stringify(config));
  return file;
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  );

type Health = { servers: { name: string; state: string }[] };

describe('toolmesh serve with a server slow to start', () => {
  it('listens while the server is starting, says so, and adds its tools once it is ready', async () => {
    const tag = `tag-${randomUUID()}`;
    const slow = gated('slow', tag);
    const file = writeConfig('slow-http.json', { mcpServers: { ok: fixture('ok'), slow: slow.server } });
    const serving = serveToolmesh(['--config', file, '--transport', 'http', '--port', '0'], scratch.folder);
    try {
      const url = await serving.url;
      const health = async () =>
        (await (
          await fetch(url.replace(/\/mcp$/, '/health'), {
            headers: { authorization: `Bearer ${await serving.token}` },
          })
        ).json()) as Health;
      await until(async () => (await health()).servers.some((server) => server.state === 'ready'));
      expect((await health()).servers).toEqual([
        expect.objectContaining({ name: 'ok', state: 'ready' }),
        expect.objectContaining({ name: 'slow', state: 'starting' }),
      ]);

      const client = await serving.connect();
      let changes = 0;
      client.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        changes++;
      });
      const search = await client.call('search_tool_bm25', { query: 'echo text', limit: 25 });
      const found = search.structuredContent as { results: { server: string }[]; starting?: string[] };
      expect(found.starting).toEqual(['slow']);
      expect(new Set(found.results.map((hit) => hit.server))).toEqual(new Set(['ok']));
      expect(resultText(search)).toContain('Still starting: slow');
      const early = await client.call('call_tool', { name: 'slow__echo', arguments: { text: 'early' } });
      expect(early.isError).toBe(true);
      expect(resultText(early)).toMatch(/No tool named slow__echo\..*Still starting: slow/);

      slow.open();
      await until(() => changes > 0);
      await until(async () =>
        (await client.client.listTools()).tools.some((tool) => tool.name === 'slow__echo'),
      );
      expect(resultText(await client.call('slow__echo', { text: 'late' }))).toBe('slow: late');
      const after = await client.call('search_tool_bm25', { query: 'echo text', limit: 25 });
      expect((after.structuredContent as { starting?: string[] }).starting).toBeUndefined();
      await client.close();
    } finally {
      serving.child.kill('SIGTERM');
      await exited(serving.child);
      reapTagged(tag);
    }
  });

  it('answers initialize over stdio at once, and its first tools/list once the start-up wait is over', async () => {
    const tag = `tag-${randomUUID()}`;
    const slow = gated('slow', tag);
    // A wait far longer than the test may take: initialize must not wait for it.
    const file = writeConfig('slow-initialize.json', {
      mcpServers: { ok: fixture('ok'), slow: slow.server },
      startupWaitMs: 600_000,
    });
    const client = await spawnStdioClient(process.execPath, [TOOLMESH_BIN, 'serve', '--config', file], {
      cwd: scratch.folder,
    });
    try {
      expect(client.client.getServerVersion()?.name).toBe('toolmesh');
      let listed = false;
      const firstList = client.client.listTools().then((answer) => {
        listed = true;
        return answer;
      });
      await until(() => processesTagged(tag).length === 1);
      expect(listed).toBe(false);
      slow.open();
      const names = (await firstList).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['ok__echo', 'slow__echo']));
    } finally {
      await client.close();
      reapTagged(tag);
    }
  });

  it('answers its first tools/list from the cached catalogue while a server starts, then says it joined', async () => {
    const tag = `tag-${randomUUID()}`;
    const slow = gated('slow', tag);
    const file = writeConfig('slow-cached.json', {
      mcpServers: { ok: fixture('ok'), slow: slow.server },
      startupWaitMs: 600_000,
    });
    const dataDir = path.join(scratch.folder, `data-${tag}`);
    const serve = () =>
      spawnStdioClient(process.execPath, [TOOLMESH_BIN, 'serve', '--config', file], {
        cwd: scratch.folder,
        env: { TOOLMESH_DATA_DIR: dataDir },
      });
    // A first serve with every server up keeps their catalogues.
    slow.open();
    const first = await serve();
    try {
      expect((await first.client.listTools()).tools.map((tool) => tool.name)).toContain('slow__echo');
    } finally {
      await first.close();
      reapTagged(tag);
    }
    // The next one lists them from the cache at once, though slow does not answer and the wait is long.
    rmSync(path.join(scratch.folder, `gate-${tag}`));
    const second = await serve();
    try {
      let joined = false;
      second.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        joined = true;
      });
      const names = (await second.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['ok__echo', 'slow__echo']));
      expect(joined).toBe(false);
      // Calls wait for the start-up wait as before: once slow answers, it joins and is called.
      slow.open();
      expect(resultText(await second.call('slow__echo', { text: 'late' }))).toBe('slow: late');
      await until(() => joined);
      // The search index, built from the cache after that first list, finds both servers' tools.
      const search = await second.call('search_tool_bm25', { query: 'echo text', limit: 25 });
      const hits = (search.structuredContent as { results: { server: string }[] }).results;
      expect(new Set(hits.map((hit) => hit.server))).toEqual(new Set(['ok', 'slow']));
    } finally {
      await second.close();
      reapTagged(tag);
    }
  });

  it('answers over stdio while the server is starting, and stops it when its stdin closes', async () => {
    const tag = `tag-${randomUUID()}`;
    const file = writeConfig('slow-stdio.json', {
      mcpServers: { slow: gated('slow', tag).server },
      startupWaitMs: 200,
    });
    const client = await spawnStdioClient(process.execPath, [TOOLMESH_BIN, 'serve', '--config', file], {
      cwd: scratch.folder,
    });
    try {
      // initialize is answered before the servers are spawned: wait for this one to be.
      await until(() => processesTagged(tag).length === 1);
      const search = await client.call('search_tool_bm25', { query: 'echo' });
      expect((search.structuredContent as { starting?: string[] }).starting).toEqual(['slow']);
      await client.close();
      // The server never answered initialize, nor reads its stdin: toolmesh must end it itself.
      await until(() => processesTagged(tag).length === 0, 12_000);
    } finally {
      await client.close();
      reapTagged(tag);
    }
  });

  it('stops a server a reload added, still connecting, when toolmesh gets SIGTERM', async () => {
    const tag = `tag-${randomUUID()}`;
    const file = writeConfig('slow-reload.json', { mcpServers: { ok: fixture('ok') } });
    const serving = serveToolmesh(['--config', file, '--transport', 'http', '--port', '0'], scratch.folder);
    try {
      await serving.url;
      // The file is watched from just after "listening on" is printed: write until the edit is seen.
      for (let attempt = 0; attempt < 5 && processesTagged(tag).length === 0; attempt++) {
        writeConfig('slow-reload.json', {
          mcpServers: { ok: fixture('ok'), slow: gated('slow', tag).server },
        });
        await until(() => processesTagged(tag).length === 1, 1500).catch(() => undefined);
      }
      expect(processesTagged(tag)).toHaveLength(1);
      serving.child.kill('SIGTERM');
      await exited(serving.child);
      await until(() => processesTagged(tag).length === 0, 12_000);
    } finally {
      serving.child.kill('SIGKILL');
      reapTagged(tag);
    }
  });
});

describe('a reload that adds a server slow to start', () => {
  let harness: Harness;
  const tag = `tag-${randomUUID()}`;
  beforeAll(async () => {
    harness = await startHarness({ mcpServers: { kept: fixture('kept') } });
  });
  afterAll(async () => {
    await harness.close();
    reapTagged(tag);
  });

  it('returns before the server is ready, and a later reload is applied meanwhile', async () => {
    const slow = gated('slow', tag);
    const first = await harness.aggregator.reload(
      parseConfig({ mcpServers: { kept: fixture('kept'), slow: slow.server } }),
    );
    expect(first.added).toEqual(['slow']);
    expect(harness.aggregator.upstreams.get('slow')?.state).toBe('starting');

    const second = await harness.aggregator.reload(
      parseConfig({ mcpServers: { kept: fixture('kept'), slow: slow.server, extra: fixture('extra') } }),
    );
    expect(second.added).toEqual(['extra']);
    await until(() => harness.aggregator.registry.tool('extra__echo') !== undefined);
    expect(harness.aggregator.upstreams.get('slow')?.state).toBe('starting');

    slow.open();
    await until(() => harness.aggregator.registry.tool('slow__echo') !== undefined);
    expect(harness.aggregator.upstreams.list().map((upstream) => upstream.name)).toEqual([
      'kept',
      'slow',
      'extra',
    ]);
  });
});

describe('stopping toolmesh while a server is connecting', () => {
  it('ends the server and the attempt: nothing is restarted', async () => {
    const tag = `tag-${randomUUID()}`;
    const harness = await startHarness({ mcpServers: { kept: fixture('kept') } });
    try {
      await harness.aggregator.reload(
        parseConfig({ mcpServers: { kept: fixture('kept'), slow: gated('slow', tag).server } }),
      );
      await until(() => processesTagged(tag).length === 1);
      const slow = harness.aggregator.upstreams.get('slow');
      await harness.close();
      expect(slow?.state).toBe('stopped');
      // stop() waited for the attempt to end, so a restart it scheduled would be in the log by now.
      expect(harness.logs.filter((line) => line.includes('[slow]') && /unavailable/.test(line))).toEqual([]);
      await until(() => processesTagged(tag).length === 0, 12_000);
    } finally {
      reapTagged(tag);
    }
  });
});

describe('a start that fails', () => {
  // Answers initialize with an error, then lives on, deaf to SIGTERM: only the group's SIGKILL ends it.
  const failingServer = (tag: string, answers: string) => ({
    command: 'sh',
    args: ['-c', `${answers}; trap "" TERM; while :; do sleep 1; done # ${tag}`],
  });
  // As a 2025 server does, it answers toolmesh's server/discover probe (its first line) with
  // "method not found", whatever the probe's id; toolmesh then initializes it on the same process.
  const PROBE_REFUSED = `read probe; printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\\n' "$(printf '%s' "$probe" | sed -E 's/^[{]"jsonrpc":"2.0","id":("[^"]*"|[0-9]+).*/\\1/')"`;
  const INIT_REFUSED = `${PROBE_REFUSED}; read line; echo '{"jsonrpc":"2.0","id":0,"error":{"code":-32603,"message":"boom"}}'`;

  it('ends with its server gone, so no restart runs beside it and stop() leaves nothing', async () => {
    const tag = `tag-${randomUUID()}`;
    const harness = await startHarness(
      { mcpServers: { refused: failingServer(tag, INIT_REFUSED) } },
      { backoffBaseMs: 60_000, backoffMaxMs: 60_000 },
    );
    try {
      // The harness waits for the first attempt to end; ending it ends the server first.
      expect(harness.aggregator.upstreams.get('refused')?.state).toBe('restarting');
      expect(processesTagged(tag)).toEqual([]);
    } finally {
      await harness.close();
      reapTagged(tag);
    }
  });

  it('is reported by its own error, even when ending the server outlasts connectTimeoutMs', async () => {
    const tag = `tag-${randomUUID()}`;
    const initialized =
      '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"x","version":"1"}}}';
    const refusal =
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"tools/list refused: bad credentials"}}';
    const harness = await startHarness(
      {
        mcpServers: {
          refused: {
            ...failingServer(
              tag,
              `${PROBE_REFUSED}; read a; echo '${initialized}'; read b; read c; echo '${refusal}'`,
            ),
            connectTimeoutMs: 1000,
          },
        },
      },
      { backoffBaseMs: 60_000, backoffMaxMs: 60_000 },
    );
    try {
      expect(harness.aggregator.upstreams.get('refused')?.lastError).toMatch(
        /tools\/list refused: bad credentials/,
      );
    } finally {
      await harness.close();
      reapTagged(tag);
    }
  });
});

describe('stopping toolmesh while a reload is under way', () => {
  it('starts none of the servers the reload adds', async () => {
    const slowTag = `tag-${randomUUID()}`;
    const addedTag = `tag-${randomUUID()}`;
    const harness = await startHarness({
      mcpServers: { slow: { command: process.execPath, args: [STUBBORN_SERVER, slowTag] } },
    });
    try {
      // Changing `slow` stops it first, which takes its grace: stop() comes in meanwhile.
      const reloading = harness.aggregator.reload(
        parseConfig({
          mcpServers: {
            slow: { command: process.execPath, args: [STUBBORN_SERVER, slowTag, 'changed'] },
            added: fixture('added', { args: [FIXTURE_SERVER, addedTag] }),
          },
        }),
      );
      await harness.aggregator.stop();
      await reloading;
      expect(harness.aggregator.upstreams.get('added')).toBeUndefined();
      expect(processesTagged(addedTag)).toEqual([]);
    } finally {
      await harness.close();
      reapTagged(slowTag);
      reapTagged(addedTag);
    }
  });
});

describe('connectTimeoutMs', () => {
  it('abandons a start that takes longer, and retries it', async () => {
    const tag = `tag-${randomUUID()}`;
    // The retry is a minute away, so any process carrying the tag is the abandoned one.
    const harness = await startHarness(
      { mcpServers: { hung: gated('hung', tag, { connectTimeoutMs: 300 }).server } },
      { backoffBaseMs: 60_000, backoffMaxMs: 60_000 },
    );
    try {
      // The harness waits for each server's first attempt, which the timeout ended with its process.
      const hung = harness.aggregator.upstreams.get('hung');
      expect(hung?.state).toBe('restarting');
      expect(hung?.lastError).toBe('not ready within 300 ms (connectTimeoutMs)');
      expect(processesTagged(tag)).toEqual([]);
    } finally {
      await harness.close();
      reapTagged(tag);
    }
  });

  it('bounds how long toolmesh doctor waits for a server, which it reports as failed', async () => {
    const tag = `tag-${randomUUID()}`;
    const file = writeConfig('slow-doctor.json', {
      mcpServers: { ok: fixture('ok'), hung: gated('hung', tag, { connectTimeoutMs: 300 }).server },
    });
    const doctor = await promisify(execFile)(process.execPath, [TOOLMESH_BIN, 'doctor', '--config', file], {
      cwd: scratch.folder,
    }).catch((error: { code: number; stdout: string }) => error);
    reapTagged(tag);
    expect(doctor).toMatchObject({ code: 1 });
    expect(doctor.stdout).toMatch(/^ok\s+ok: \d+ tools, MCP 2025-\d\d-\d\d \(2025, sessions\)$/m);
    expect(doctor.stdout).toMatch(/^FAILED\s+hung: not ready within 300 ms \(connectTimeoutMs\)$/m);
    expect(doctor.stdout).toMatch(
      /^\s+if it is only slow to start .*raise "connectTimeoutMs" in its entry; otherwise check that/m,
    );
  });
});
