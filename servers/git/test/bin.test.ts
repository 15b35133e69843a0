import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { connectHttpClient, spawnStdioClient, toolExpectations } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, makeRepository, writeFile } from './fixture.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const run = promisify(execFile);
let base: string;
let root: string;
let repo: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-git-bin-')));
  root = path.join(base, 'root');
  repo = makeRepository(path.join(root, 'app'), {
    'src/math.ts': 'export function add(a: number, b: number) {\n  return a + b;\n}\n',
    'README.md': '# app\n',
  });
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

describe('toolmesh-git over real stdio', () => {
  it('serves every tool to an SDK client, with stdout for protocol only, and exits when stdin closes', async () => {
    const server = await spawnStdioClient(process.execPath, [
      BIN,
      '--root',
      root,
      '--allow-write',
      '--log-level',
      'debug',
    ]);
    const { tools } = await server.client.listTools();
    expect(tools).toHaveLength(11);
    expect((await toolExpectations(server).ok('git_repos', {})).repositories).toEqual([
      expect.objectContaining({ repo: 'app', branch: 'main', clean: true }),
    ]);
    writeFile(
      path.join(repo, 'src/math.ts'),
      'export function add(a: number, b: number) {\n  return b + a;\n}\n',
    );
    expect(await toolExpectations(server).ok('git_status', { repo: 'app' })).toMatchObject({
      unstaged: [{ path: 'src/math.ts' }],
    });
    expect(await toolExpectations(server).ok('git_diff', { repo: 'app', mode: 'semantic' })).toMatchObject({
      files: [{ path: 'src/math.ts', symbols: [{ name: 'add', kind: 'function', change: 'modified' }] }],
    });
    expect(
      (await toolExpectations(server).ok<{ patch: string }>('git_diff', { repo: 'app', mode: 'patch' }))
        .patch,
    ).toBe(git(repo, 'diff'));
    expect(await toolExpectations(server).ok('git_grep', { repo: 'app', pattern: 'b + a' })).toMatchObject({
      matches: [{ path: 'src/math.ts', line: 2 }],
    });
    await toolExpectations(server).ok('git_stage', { repo: 'app', paths: ['src/math.ts'] });
    const committed = await toolExpectations(server).ok<{ commit: string }>('git_commit', {
      repo: 'app',
      message: 'swap the operands',
    });
    expect(git(repo, 'log', '-1', '--format=%H %s')).toBe(`${committed.commit} swap the operands\n`);
    expect(await toolExpectations(server).ok('git_history', { repo: 'app', action: 'log' })).toMatchObject({
      commits: [{ subject: 'swap the operands' }, { subject: 'first commit' }],
    });
    expect(await toolExpectations(server).ok('git_history', { repo: 'app', action: 'show' })).toMatchObject({
      commit: { hash: committed.commit },
    });
    expect(
      await toolExpectations(server).ok('git_history', { repo: 'app', action: 'blame', path: 'src/math.ts' }),
    ).toMatchObject({
      lines: [{ line: 1 }, { line: 2, commit: committed.commit }, { line: 3 }],
    });
    await toolExpectations(server).ok('git_branch', {
      repo: 'app',
      action: 'create',
      name: 'topic',
      switchTo: true,
    });
    expect(git(repo, 'branch', '--show-current')).toBe('topic\n');
    expect(await toolExpectations(server).ok('git_branches', { repo: 'app' })).toMatchObject({
      current: 'topic',
    });
    await toolExpectations(server).ok('git_branch', { repo: 'app', action: 'switch', name: 'main' });
    await toolExpectations(server).ok('git_branch', { repo: 'app', action: 'delete', name: 'topic' });
    writeFile(path.join(repo, 'README.md'), '# changed\n');
    await toolExpectations(server).ok('git_stash', { repo: 'app', action: 'push', message: 'readme' });
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(await toolExpectations(server).ok('git_stash', { repo: 'app', action: 'list' })).toMatchObject({
      stashes: [{ message: 'On main: readme' }],
    });
    await toolExpectations(server).ok('git_stash', { repo: 'app', action: 'pop' });
    const restored = await toolExpectations(server).ok<{ stash: { commit: string } }>('git_restore', {
      repo: 'app',
      paths: ['README.md'],
    });
    expect(readFileSync(path.join(repo, 'README.md'), 'utf8')).toBe('# app\n');
    expect(git(repo, 'show', `${restored.stash.commit}:README.md`)).toBe('# changed\n');
    expect((await server.call('git_stage', { repo: 'app', paths: ['../../etc/passwd'] })).isError).toBe(true);
    expect(server.stderr()).toMatch(/\[toolmesh-git\] roots .*; read and write tools/);
    const pid = server.pid as number;
    await server.close();
    expect(await waitFor(() => !alive(pid))).toBe(true);
  });

  it('writes only JSON-RPC messages to stdout', async () => {
    const child = spawn(process.execPath, [BIN, '--root', root, '--log-level', 'debug'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const send = (message: object) =>
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'git_status', arguments: { repo: 'app' } } });
    send({ id: 3, method: 'tools/call', params: { name: 'git_status', arguments: { repo: '../..' } } });
    await waitFor(() => stdout.split('\n').filter(Boolean).length >= 3, 15000);
    child.stdin.end();
    await exited;
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  });

  it('is read-only unless --allow-write', async () => {
    const server = await spawnStdioClient(process.execPath, [BIN, '--root', root]);
    const { tools } = await server.client.listTools();
    expect(tools.map((entry) => entry.name)).toEqual([
      'git_repos',
      'git_status',
      'git_diff',
      'git_history',
      'git_branches',
      'git_grep',
    ]);
    await server.close();
  });

  it('prints help, and refuses bad flags with a message and exit code 2', async () => {
    const help = await run(process.execPath, [BIN, '--help']);
    expect(help.stdout).toBe('');
    expect(help.stderr).toMatch(/--allow-write[\s\S]*--root DIR/);
    const bad = await run(process.execPath, [BIN, '--allow-writes']).catch((error) => error);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Unknown option '--allow-writes'/);
    const missing = await run(process.execPath, [BIN, '--root', path.join(base, 'nowhere')]).catch(
      (error) => error,
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no such file or directory/i);
  });
});

describe('toolmesh-git over Streamable HTTP', () => {
  let child: ChildProcess;

  afterAll(() => {
    child?.kill('SIGKILL');
  });

  it('serves a client and writes nothing to stdout', async () => {
    child = spawn(process.execPath, [BIN, '--root', root, '--transport', 'http', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
        const found = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
        if (found) resolve(found[1] as string);
      });
      child.once('exit', () => reject(new Error(`exited early: ${stderr}`)));
    });
    const client = await connectHttpClient(url);
    expect((await client.call('git_status', { repo: 'app' })).structuredContent).toMatchObject({
      branch: 'main',
    });
    await client.close();
    expect(stdout).toBe('');
    expect(stderr).toContain('"mcpServers"');
  });
});
