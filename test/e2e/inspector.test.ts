// The official MCP Inspector's CLI (pinned to 0.17.5, the last release that runs on Node 20 and
// sends headers) as a third-party client of the aggregator (issue 21, item 4): list the tools,
// search them, call one; over stdio, and over Streamable HTTP with a bearer token.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../bench/install-sizes.mjs';

const run = promisify(execFile);

const AGGREGATOR = path.join(REPO, 'aggregator/dist/index.js');
const FS_SERVER = path.join(REPO, 'servers/fs/dist/index.js');
const INSPECTOR = (() => {
  const manifest = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return path.join(path.dirname(manifest), bin['mcp-inspector'] as string);
})();

const folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-inspector-'));
const project = path.join(folder, 'project');
const dataDir = path.join(folder, 'data');
let serving: ChildProcess | undefined;
let url = '';
let token = '';

/** Runs the Inspector's CLI in the folder that holds toolmesh.json; resolves to its parsed answer. */
async function inspector(args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [INSPECTOR, '--cli', ...args], {
    cwd: folder,
    env: { ...process.env, TOOLMESH_DATA_DIR: dataDir },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** Resolves to the endpoint once `toolmesh serve --transport http` says where it listens. */
function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let log = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      log += chunk;
      const found = /listening on (http:\/\/\S+\/mcp)\b/.exec(log);
      if (found) resolve(found[1] as string);
    });
    child.once('exit', (code) =>
      reject(new Error(`toolmesh serve exited (${code}) before listening:\n${log}`)),
    );
  });
}

beforeAll(async () => {
  mkdirSync(project, { recursive: true });
  writeFileSync(path.join(project, 'notes.txt'), 'deploys happen on Fridays\n');
  writeFileSync(
    path.join(folder, 'toolmesh.json'),
    JSON.stringify({
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, '--root', project] } },
    }),
  );
  const env = { ...process.env, TOOLMESH_DATA_DIR: dataDir };
  const created = await run(process.execPath, [AGGREGATOR, 'token', 'create', '--name', 'inspector'], {
    cwd: folder,
    env,
  });
  token = /^tm_\S+$/m.exec(created.stdout + created.stderr)?.[0] ?? '';
  expect(token).not.toBe('');
  serving = spawn(process.execPath, [AGGREGATOR, 'serve', '--transport', 'http', '--port', '0'], {
    cwd: folder,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  url = await listening(serving);
});

afterAll(async () => {
  if (serving && serving.exitCode === null && serving.signalCode === null) {
    const exited = new Promise((resolve) => serving?.once('exit', resolve));
    serving.kill('SIGTERM');
    await exited;
  }
  rmSync(folder, { recursive: true, force: true });
});

/** How the Inspector reaches toolmesh: the command it spawns, or the URL with the token. */
const TRANSPORTS = {
  stdio: () => ['-e', `TOOLMESH_DATA_DIR=${dataDir}`, process.execPath, AGGREGATOR, 'serve'],
  'Streamable HTTP with a bearer token': () => [
    url,
    '--transport',
    'http',
    '--header',
    `Authorization: Bearer ${token}`,
  ],
};

describe.each(Object.entries(TRANSPORTS))('the MCP Inspector CLI over %s', (_transport, target) => {
  it('lists the tools: the fs server behind toolmesh and toolmesh own', async () => {
    const { tools } = (await inspector([...target(), '--method', 'tools/list'])) as {
      tools: { name: string }[];
    };
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['fs__read_file', 'search_tool_bm25', 'call_tool']),
    );
  });

  it('searches the tools with search_tool_bm25', async () => {
    const found = (await inspector([
      ...target(),
      '--method',
      'tools/call',
      '--tool-name',
      'search_tool_bm25',
      '--tool-arg',
      'query=read a text file',
    ])) as { structuredContent: { results: { name: string }[] } };
    expect(found.structuredContent.results[0]?.name).toBe('fs__read_file');
  });

  it('calls a tool of the fs server', async () => {
    const read = (await inspector([
      ...target(),
      '--method',
      'tools/call',
      '--tool-name',
      'fs__read_file',
      '--tool-arg',
      'path=notes.txt',
    ])) as { isError?: boolean; structuredContent: { content: string } };
    expect(read.isError).toBeFalsy();
    expect(read.structuredContent.content).toBe('deploys happen on Fridays\n');
  });
});

it('the MCP Inspector CLI without the token is refused, told how to send one', async () => {
  const failure = await run(
    process.execPath,
    [INSPECTOR, '--cli', url, '--transport', 'http', '--method', 'tools/list'],
    {
      cwd: folder,
    },
  ).catch((error: { stdout: string; stderr: string }) => error);
  expect(`${failure.stdout}${failure.stderr}`).toContain('No bearer token: send the header');
});
