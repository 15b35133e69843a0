import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { resultText, spawnStdioClient } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TOOLMESH_BIN as BIN,
  FIXTURE_SERVER,
  FS_BIN,
  fixture,
  type Harness,
  processesTagged,
  reapTagged,
  STUBBORN_SERVER,
  serveFixtureOverHttp,
  serveToolmesh,
  startHarness,
  until,
  watchdogOf,
} from './harness.js';

const EVERYTHING = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

let scratch: Harness;
let folder: string;
beforeAll(async () => {
  scratch = await startHarness({});
  folder = scratch.folder;
  writeFileSync(path.join(folder, 'hello.txt'), 'hello\n');
});
afterAll(() => scratch.close());

function writeConfig(name: string, servers: Record<string, unknown>): string {
  const file = path.join(folder, name);
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

describe('toolmesh serve over stdio', () => {
  it('serves our fs server and a third-party server from npm as one registry', async () => {
    const config = writeConfig('stdio.json', {
      fs: { command: process.execPath, args: [FS_BIN, '--root', folder] },
      everything: { command: process.execPath, args: [EVERYTHING] },
    });
    const server = await spawnStdioClient(process.execPath, [BIN, 'serve', '--config', config], {
      cwd: folder,
    });
    const names = (await server.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['fs__read_file', 'everything__echo', 'search_tool_bm25']));
    expect(resultText(await server.call('everything__echo', { message: 'from npm' }))).toContain('from npm');
    expect((await server.call('fs__read_file', { path: 'hello.txt' })).structuredContent).toMatchObject({
      content: 'hello\n',
    });
    const found = (await server.call('search_tool_bm25', { query: 'echo message back', limit: 3 }))
      .structuredContent as {
      results: { name: string }[];
    };
    expect(found.results.map((hit) => hit.name)).toContain('everything__echo');
    await server.close();
  });

  it('answers what a pipe sent before it closed stdin, then exits', async () => {
    const config = writeConfig('piped.json', { slow: fixture('slow') });
    const child = spawn(process.execPath, [BIN, 'serve', '--config', config, '--log-level', 'error'], {
      cwd: folder,
      env: { ...process.env, TOOLMESH_DATA_DIR: path.join(folder, 'piped-data') },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    const exited = once(child, 'exit');
    const line = (message: Record<string, unknown>) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;
    child.stdin.end(
      line({
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'pipe', version: '1' },
        },
      }) +
        line({ method: 'notifications/initialized' }) +
        line({ id: 2, method: 'tools/list' }) +
        line({ id: 3, method: 'tools/call', params: { name: 'slow__count_slowly', arguments: { n: 3 } } }),
    );
    const [code] = await exited;
    const answers = stdout
      .split('\n')
      .filter(Boolean)
      .map((text) => JSON.parse(text))
      .filter((message) => 'id' in message);
    expect(answers.map((answer) => answer.id)).toEqual([1, 2, 3]);
    expect(JSON.stringify(answers[1].result.tools)).toContain('slow__count_slowly');
    expect(answers[2].result.content[0].text).toMatch(/3/);
    expect(code).toBe(0);
  });
});

describe('toolmesh serve over HTTP', () => {
  let remote: ChildProcess;
  let serving: ReturnType<typeof serveToolmesh>;
  let url: string;
  let configFile: string;
  let remoteUrl_: string;
  const health = async () =>
    (await (
      await fetch(url.replace(/\/mcp$/, '/health'), {
        headers: { authorization: `Bearer ${await serving.token}` },
      })
    ).json()) as {
      servers: { name: string; state: string }[];
    };

  beforeAll(async () => {
    const served = await serveFixtureOverHttp('remote', '--http');
    remote = served.child;
    const remoteUrl = served.url;
    remoteUrl_ = remoteUrl;
    configFile = writeConfig('http.json', {
      remote: { url: remoteUrl },
      local: fixture('local'),
    });
    serving = serveToolmesh(['--config', configFile, '--transport', 'http', '--port', '0'], folder);
    url = await serving.url;
  });
  afterAll(() => {
    serving.child.kill('SIGKILL');
    remote.kill('SIGKILL');
  });

  it('proxies a remote Streamable HTTP server and a local one, and prints client snippets', async () => {
    const client = await serving.connect();
    expect(resultText(await client.call('remote__echo', { text: 'over http' }))).toBe('remote: over http');
    expect(resultText(await client.call('local__echo', { text: 'over stdio' }))).toBe('local: over stdio');
    await client.close();
    expect(serving.stderr()).toContain('claude mcp add --transport http toolmesh');
  });

  it("prints VS Code's snippet under servers with type http, and Cursor's under mcpServers", async () => {
    const url = await serving.url;
    const headers = { Authorization: `Bearer ${await serving.token}` };
    const snippet = (label: string) =>
      JSON.parse(
        new RegExp(`${label.replace(/[().]/g, '\\$&')}\n(\\{[\\s\\S]*?\\n\\})\n`).exec(
          serving.stderr(),
        )?.[1] ?? 'null',
      );
    expect(snippet('VS Code (.vscode/mcp.json):')).toEqual({
      servers: { toolmesh: { type: 'http', url, headers } },
    });
    expect(snippet('Cursor (~/.cursor/mcp.json) and other clients that read mcpServers:')).toEqual({
      mcpServers: { toolmesh: { url, headers } },
    });
  });

  it('serves only the discovery tools on /mcp/discovery', async () => {
    const client = await serving.connect('/discovery');
    expect((await client.client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'search_tool_bm25',
      'list_my_tools',
      'call_tool',
      'todo_write',
      'todo_read',
      'list_workspaces',
    ]);
    await client.close();
  });

  it('reloads when the config file changes or on SIGHUP, and keeps running on a broken edit', async () => {
    const client = await serving.connect();
    writeFileSync(
      configFile,
      JSON.stringify({
        mcpServers: { remote: { url: remoteUrl_ }, local: fixture('local'), extra: fixture('extra') },
      }),
    );
    await until(async () =>
      (await health()).servers.some((server) => server.name === 'extra' && server.state === 'ready'),
    );
    expect(resultText(await client.call('extra__echo', { text: 'hot' }))).toBe('extra: hot');
    writeFileSync(configFile, '{ "mcpServers": { "broken": { "args": [] } } }');
    serving.child.kill('SIGHUP');
    await until(() => /new config was not applied: [\s\S]*mcpServers\.broken/.test(serving.stderr()));
    expect((await health()).servers.map((server) => server.name)).toEqual(['remote', 'local', 'extra']);
    writeFileSync(
      configFile,
      JSON.stringify({ mcpServers: { remote: { url: remoteUrl_ }, local: fixture('local') } }),
    );
    await until(async () => (await health()).servers.length === 2);
    expect(resultText(await client.call('local__echo', { text: 'same session' }))).toBe(
      'local: same session',
    );
    await client.close();
  });

  it('reports each server on GET /health', async () => {
    expect((await health()).servers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'remote',
          state: 'ready',
          protocolVersion: expect.stringMatching(/^2025-/),
        }),
        expect.objectContaining({
          name: 'local',
          state: 'ready',
          protocolVersion: expect.stringMatching(/^2025-/),
        }),
      ]),
    );
  });
});

describe('no child outlives toolmesh', () => {
  // Five servers start and end under whatever else the machine runs: each condition is waited
  // for, with bounds generous enough for two busy cores.
  const PATIENCE_MS = 90_000;
  const waysOut: [string, (child: ChildProcess) => void][] = [
    ['SIGINT', (child) => child.kill('SIGINT')],
    ['SIGTERM', (child) => child.kill('SIGTERM')],
    ['stdin closing', (child) => child.stdin?.end()],
    ['SIGKILL', (child) => child.kill('SIGKILL')],
  ];
  for (const [way, end] of waysOut) {
    it(
      `when it ends by ${way}, servers that outlive their stdin and wrapped ones included`,
      async () => {
        // The tag is in each child's command line, so the children can be found in /proc.
        const tag = `tag-${randomUUID()}`;
        const config = writeConfig(`orphans-${way.replace(/\W/g, '')}.json`, {
          one: { command: process.execPath, args: [FIXTURE_SERVER, tag] },
          two: { command: process.execPath, args: [FIXTURE_SERVER, tag] },
          fs: { command: process.execPath, args: [FS_BIN, '--root', folder, '--workspace', tag] },
          stubborn: { command: process.execPath, args: [STUBBORN_SERVER, tag] },
          // The shape of npx or a shell wrapper: the server is a grandchild, and `sh` waits for it.
          wrapped: { command: 'sh', args: ['-c', `"${process.execPath}" "${STUBBORN_SERVER}" ${tag}; true`] },
        });
        const serving = serveToolmesh(['--config', config], folder);
        // Over stdio it prints no URL: the promises of one reject when it exits.
        serving.token.catch(() => undefined);
        const child = serving.child;
        try {
          // Each server answered initialize: one killed before it has would die writing its answer.
          await until(() => serving.stderr().match(/\] ready: \d+ tools/g)?.length === 5, PATIENCE_MS);
          // Six: three servers, the stubborn one, and the wrapped one with its `sh`.
          expect(processesTagged(tag)).toHaveLength(6);
          await until(() => watchdogOf(child.pid as number) !== undefined, PATIENCE_MS);
          const watchdog = watchdogOf(child.pid as number);
          expect(watchdog).toBeDefined();
          end(child);
          await until(() => processesTagged(tag).length === 0, PATIENCE_MS);
          await until(() => !processesTagged('toolmesh-watchdog').includes(watchdog as number), PATIENCE_MS);
        } finally {
          child.kill('SIGKILL');
          reapTagged(tag);
        }
      },
      4 * PATIENCE_MS,
    );
  }
});
