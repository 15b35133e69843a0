import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SERVER, FS_BIN, type Harness, startHarness, TOOLMESH_BIN } from './harness.js';

const exec = promisify(execFile);

let scratch: Harness;
let folder: string;
let config: string;

/** A server entry that notes each start of it in `<name>.starts`, then runs `args` with Node. */
function counted(name: string, args: string[], env: Record<string, string> = {}) {
  const starts = path.join(folder, `${name}.starts`);
  return {
    command: 'sh',
    args: ['-c', `echo started >> "${starts}"; exec "$0" "$@"`, process.execPath, ...args],
    env,
  };
}

function startsOf(name: string): number {
  const file = path.join(folder, `${name}.starts`);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
}

function writeConfig(fixtureName: string): void {
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        fs: counted('fs', [FS_BIN, '--root', folder]),
        echoes: counted('echoes', [FIXTURE_SERVER], { FIXTURE_NAME: fixtureName }),
      },
    }),
  );
}

function toolmesh(dataDir: string, ...args: string[]) {
  return exec(process.execPath, [TOOLMESH_BIN, ...args, '--config', config], {
    cwd: folder,
    env: { ...process.env, TOOLMESH_DATA_DIR: path.join(folder, dataDir) },
    timeout: 120_000,
  });
}

beforeAll(async () => {
  scratch = await startHarness({});
  folder = scratch.folder;
  config = path.join(folder, 'toolmesh.json');
  writeFileSync(path.join(folder, 'hello.txt'), 'hello from the cache test\n');
  writeConfig('first');
});
afterAll(() => scratch.close());

describe('the catalogue cache', () => {
  it('lets search start no server, and call start only the one it needs', async () => {
    // No cache yet: search starts every server, and keeps their catalogues.
    const first = await toolmesh('data', 'search', 'echo text back');
    expect(first.stdout).toMatch(/^echoes__echo/m);
    expect(first.stderr).not.toMatch(/catalogue cached/);
    expect([startsOf('fs'), startsOf('echoes')]).toEqual([1, 1]);

    const cached = await toolmesh('data', 'search', 'echo text back');
    expect(cached.stdout).toBe(first.stdout);
    expect(cached.stderr).toMatch(/listed from the catalogue cached less than a minute ago/);
    const tools = await toolmesh('data', 'tools');
    expect(tools.stdout).toMatch(/^fs__read_file\s/m);
    expect([startsOf('fs'), startsOf('echoes')]).toEqual([1, 1]);

    const called = await toolmesh('data', 'call', 'fs__read_file', '{"path":"hello.txt"}');
    expect(called.stdout).toContain('hello from the cache test');
    expect([startsOf('fs'), startsOf('echoes')]).toEqual([2, 1]);
  });

  it('starts a server whose config changed, and every server for a tool the cache does not know', async () => {
    writeConfig('second');
    const searched = await toolmesh('data', 'search', 'echo text back');
    expect(searched.stdout).toMatch(/^echoes__echo/m);
    expect([startsOf('fs'), startsOf('echoes')]).toEqual([2, 2]);
    const unknown = await toolmesh('data', 'call', 'echoes__no_such_tool', '{}').catch((error) => error);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/No tool named echoes__no_such_tool/);
    expect([startsOf('fs'), startsOf('echoes')]).toEqual([3, 3]);
  });

  it('judges a call by what its server lists when it starts, not by a stale cached catalogue', async () => {
    writeConfig('third');
    await toolmesh('stale', 'tools');
    // The cache says count_slowly only reads (as an older build of the server might have said):
    // the server, once started, lists it as a tool that may change things, which plan mode denies.
    const file = path.join(folder, 'stale', 'aggregator', 'catalogue.json');
    const cache = JSON.parse(readFileSync(file, 'utf8'));
    const tool = cache.servers.echoes.catalog.tools.find(
      (entry: { name: string }) => entry.name === 'count_slowly',
    );
    tool.annotations = { readOnlyHint: true, openWorldHint: false };
    writeFileSync(file, JSON.stringify(cache));
    const called = await toolmesh('stale', 'call', 'echoes__count_slowly', '{"n":1}', '--mode', 'plan').catch(
      (error) => error,
    );
    expect(called.stdout).not.toContain('counted to 1');
    expect(called.stdout).toMatch(/blocked in plan mode/);
    expect(called.code).toBe(1);
  });

  it('keeps apart a server run from different folders by a command relative to each', async () => {
    // One config, used from two projects: `node server.mjs` is a different server in each.
    const shared = path.join(folder, 'shared.json');
    writeFileSync(
      shared,
      JSON.stringify({ mcpServers: { local: { command: process.execPath, args: ['server.mjs'] } } }),
    );
    const projects = {
      echoes: path.join(folder, 'project-echoes'),
      files: path.join(folder, 'project-files'),
    };
    mkdirSync(projects.echoes);
    mkdirSync(projects.files);
    writeFileSync(
      path.join(projects.echoes, 'server.mjs'),
      `await import(${JSON.stringify(FIXTURE_SERVER)});\n`,
    );
    writeFileSync(
      path.join(projects.files, 'server.mjs'),
      `process.argv.push('--root', process.cwd());\nawait import(${JSON.stringify(FS_BIN)});\n`,
    );
    const tools = (cwd: string) =>
      exec(process.execPath, [TOOLMESH_BIN, 'tools', '--config', shared], {
        cwd,
        env: { ...process.env, TOOLMESH_DATA_DIR: path.join(folder, 'projects-data') },
        timeout: 120_000,
      });
    expect((await tools(projects.echoes)).stdout).toMatch(/^local__echo\s/m);
    const files = await tools(projects.files);
    expect(files.stdout).toMatch(/^local__read_file\s/m);
    expect(files.stdout).not.toMatch(/^local__echo\s/m);
  });
});
