// The bin runs its bundle from V8's code cache (issue 21, start-up time): the cache is written by
// a run that has none and used by the next, a damaged or foreign one is ignored with the same
// answers, and nothing is written outside the cache and data directories.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, TOOLMESH_BIN } from './harness.js';

const DIST = path.dirname(TOOLMESH_BIN);

let folder: string;
let config: string;
beforeAll(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-code-cache-'));
  config = path.join(folder, 'toolmesh.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { alpha: fixture('alpha') } }));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const line = (message: object) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;

/**
 * `toolmesh serve` over stdio as a client drives it: initialize, then tools/list, then stdin
 * closed once it is answered. Its stdout lines, its stderr (with the cache's debug lines) and how it exited.
 */
async function serveOnce(
  cacheDir: string,
): Promise<{ stdout: string[]; stderr: string; code: number | null }> {
  const child = spawn(process.execPath, [TOOLMESH_BIN, 'serve', '--config', config], {
    cwd: folder,
    env: {
      ...process.env,
      TOOLMESH_CACHE_DIR: cacheDir,
      TOOLMESH_DATA_DIR: path.join(folder, 'data'),
      NODE_DEBUG: 'toolmesh-code-cache',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  let pending = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const text of lines) {
      stdout.push(text);
      const { id } = JSON.parse(text) as { id?: number };
      if (id === 1)
        child.stdin.write(
          line({ method: 'notifications/initialized' }) + line({ id: 2, method: 'tools/list' }),
        );
      if (id === 2) child.stdin.end();
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.stdin.write(
    line({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    }),
  );
  const code = await exited;
  return { stdout: [...stdout, pending].filter(Boolean), stderr, code };
}

/** The answers are toolmesh's, and stdout carries nothing but JSON-RPC messages. */
function expectServed(run: Awaited<ReturnType<typeof serveOnce>>): void {
  const messages = run.stdout.map(
    (text) =>
      JSON.parse(text) as {
        jsonrpc?: string;
        id?: number;
        result?: { serverInfo?: { name: string }; tools?: { name: string }[] };
      },
  );
  expect(messages.every((message) => message.jsonrpc === '2.0')).toBe(true);
  expect(messages.find((message) => message.id === 1)?.result?.serverInfo?.name).toBe('toolmesh');
  const tools = messages.find((message) => message.id === 2)?.result?.tools?.map((tool) => tool.name);
  expect(tools).toContain('search_tool_bm25');
  expect(run.code, run.stderr).toBe(0);
}

const cacheFileIn = (cacheDir: string) => path.join(cacheDir, 'code', 'toolmesh-serve.v8cache');

/** Each file under `dir` (recursively) with its size and modification time. */
function filesOf(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const file = path.join(entry.parentPath, entry.name);
        const stat = statSync(file);
        return [path.relative(dir, file), `${stat.size} ${stat.mtimeMs}`];
      }),
  );
}

describe("the bin's code cache", () => {
  it('is written by a first run, used by the next, and nothing else is written', async () => {
    const cacheDir = path.join(folder, 'first');
    const dist = filesOf(DIST);
    const first = await serveOnce(cacheDir);
    expectServed(first);
    expect(first.stderr).toMatch(/no usable cache at .*toolmesh-serve\.v8cache/);
    expect(readdirSync(path.join(cacheDir, 'code'))).toEqual(['toolmesh-serve.v8cache']);
    const written = readFileSync(cacheFileIn(cacheDir));

    const second = await serveOnce(cacheDir);
    expectServed(second);
    expect(second.stderr).toMatch(/used .*toolmesh-serve\.v8cache/);
    expect(readFileSync(cacheFileIn(cacheDir)).equals(written)).toBe(true);
    // The package's own files are left as they were: a read-only install works the same.
    expect(filesOf(DIST)).toEqual(dist);
    expect(readdirSync(folder).sort()).toEqual(['data', 'first', 'toolmesh.json']);
  });

  it('ignores a damaged cache, answers the same, and writes a good one in its place', async () => {
    const cacheDir = path.join(folder, 'damaged');
    expectServed(await serveOnce(cacheDir));
    const file = cacheFileIn(cacheDir);
    const damaged = readFileSync(file);
    // Bytes in the middle of V8's data flipped, its header line kept.
    for (let at = damaged.length >> 1; at < (damaged.length >> 1) + 64; at++) damaged[at]! ^= 0x5a;
    writeFileSync(file, damaged);

    const run = await serveOnce(cacheDir);
    expectServed(run);
    expect(run.stderr).toMatch(/no usable cache at/);
    expect(readFileSync(file).equals(damaged)).toBe(false);
    expect((await serveOnce(cacheDir)).stderr).toMatch(/used .*toolmesh-serve\.v8cache/);
  });

  it('ignores a cache from another Node or build, and one that is not a cache at all', async () => {
    const cacheDir = path.join(folder, 'foreign');
    expectServed(await serveOnce(cacheDir));
    const file = cacheFileIn(cacheDir);
    const good = readFileSync(file);
    const header = good.subarray(0, good.indexOf(10)).toString('latin1');
    const foreign = header.replace(process.version, 'v99.0.0');
    expect(foreign).not.toBe(header);

    for (const content of [
      Buffer.concat([Buffer.from(foreign), good.subarray(header.length)]),
      Buffer.from('{}'),
    ]) {
      writeFileSync(file, content);
      const run = await serveOnce(cacheDir);
      expectServed(run);
      expect(run.stderr).toMatch(/no usable cache at/);
    }
  });

  it('runs without a cache where none can be written', async () => {
    const notAFolder = path.join(folder, 'a-file');
    writeFileSync(notAFolder, '');
    const run = await serveOnce(path.join(notAFolder, 'cache'));
    expectServed(run);
    expect(run.stderr).toMatch(/cannot write .*toolmesh-serve\.v8cache/);
    expect(statSync(notAFolder).size).toBe(0);
  });

  it('is left whole by runs that write it at the same time', async () => {
    const cacheDir = path.join(folder, 'concurrent');
    mkdirSync(cacheDir);
    const runs = await Promise.all([serveOnce(cacheDir), serveOnce(cacheDir), serveOnce(cacheDir)]);
    for (const run of runs) expectServed(run);
    expect(readdirSync(path.join(cacheDir, 'code'))).toEqual(['toolmesh-serve.v8cache']);
    expect((await serveOnce(cacheDir)).stderr).toMatch(/used .*toolmesh-serve\.v8cache/);
  });
});
