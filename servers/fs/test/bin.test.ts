import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { connectHttpClient, spawnStdioClient } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const run = promisify(execFile);
let base: string;
let root: string;
let env: Record<string, string>;

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-fs-bin-')));
  root = path.join(base, 'project');
  mkdirSync(root);
  writeFileSync(path.join(root, 'hello.txt'), 'hello from disk\n');
  env = { TOOLMESH_DATA_DIR: path.join(base, 'data') };
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

describe('toolmesh-fs over real stdio', () => {
  it('serves every tool to an SDK client, logs only to stderr, and exits when stdin closes', async () => {
    const server = await spawnStdioClient(process.execPath, [BIN, '--root', root, '--log-level', 'debug'], {
      env,
    });
    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'stat_file',
      'read_file',
      'list_dir',
      'search_files',
      'search_text',
      'view_image',
      'apply_patch',
      'copy_file',
      'checkpoint_write',
      'checkpoint_read',
    ]);
    expect((await server.call('read_file', { path: 'hello.txt' })).structuredContent).toMatchObject({
      content: 'hello from disk\n',
    });
    await server.call('apply_patch', {
      operations: [{ op: 'write', path: 'made.txt', content: 'over stdio' }],
    });
    expect(readFileSync(path.join(root, 'made.txt'), 'utf8')).toBe('over stdio');
    expect((await server.call('search_text', { pattern: 'over' })).structuredContent).toMatchObject({
      matches: [{ path: 'made.txt' }],
    });
    expect(
      (await server.call('checkpoint_write', { action: 'create', paths: ['made.txt'] })).isError,
    ).toBeFalsy();
    expect((await server.call('read_file', { path: '../../etc/passwd' })).isError).toBe(true);
    const pid = server.pid as number;
    await server.close();
    expect(await waitFor(() => !alive(pid))).toBe(true);
  });

  it('prints help, and refuses bad flags with a message and exit code 2', async () => {
    const help = await run(process.execPath, [BIN, '--help']);
    expect(help.stdout).toBe('');
    expect(help.stderr).toMatch(/--read-only[\s\S]*--root DIR/);
    const bad = await run(process.execPath, [BIN, '--transport', 'smoke']).catch((error) => error);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--transport must be stdio or http/);
  });
});

describe('toolmesh-fs as a user who is not root', () => {
  // Root reads any folder whatever its mode, so as root the server runs as nobody (setpriv).
  const asUser =
    process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];

  it('writes into a folder it may write and enter but not read (mode 0333), and makes folders there', async () => {
    const owned = path.join(base, 'owned');
    const dropbox = path.join(owned, 'dropbox');
    mkdirSync(dropbox, { recursive: true });
    const data = path.join(base, 'data-of-user');
    mkdirSync(data, { mode: 0o777 });
    chmodSync(data, 0o777);
    if (asUser.length > 0) {
      chmodSync(base, 0o711);
      for (const folder of [owned, dropbox]) chownSync(folder, 65534, 65534);
    }
    chmodSync(dropbox, 0o333);
    const [command, ...prefix] = [...asUser, process.execPath];
    const client = await spawnStdioClient(command as string, [...prefix, BIN, '--root', owned], {
      env: { TOOLMESH_DATA_DIR: data },
    });
    try {
      const write = await client.call('apply_patch', {
        operations: [
          { op: 'write', path: 'dropbox/note.txt', content: 'dropped\n' },
          { op: 'mkdir', path: 'dropbox/inner' },
        ],
      });
      expect(write.isError, JSON.stringify(write.content)).toBeFalsy();
    } finally {
      await client.close();
    }
    chmodSync(dropbox, 0o755);
    expect(readFileSync(path.join(dropbox, 'note.txt'), 'utf8')).toBe('dropped\n');
  });
});

describe('toolmesh-fs over Streamable HTTP', () => {
  let child: ChildProcess;
  let url: string;

  beforeAll(async () => {
    child = spawn(process.execPath, [BIN, '--root', root, '--transport', 'http', '--port', '0'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    url = await new Promise<string>((resolve, reject) => {
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
        const found = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
        if (found) resolve(found[1] as string);
      });
      child.once('exit', () => reject(new Error(`exited early: ${stderr}`)));
    });
    expect(stdout).toBe('');
    expect(stderr).toContain('"mcpServers"');
  });
  afterAll(() => {
    child.kill('SIGKILL');
  });

  it('serves tools to several concurrent SDK clients', async () => {
    const clients = await Promise.all([connectHttpClient(url), connectHttpClient(url)]);
    const answers = await Promise.all(
      clients.map((client) => client.call('read_file', { path: 'hello.txt' })),
    );
    for (const answer of answers)
      expect(answer.structuredContent).toMatchObject({ content: 'hello from disk\n' });
    expect((await clients[0]!.call('list_dir', { path: '.' })).structuredContent).toMatchObject({
      entries: expect.arrayContaining([{ path: 'hello.txt', type: 'file', size: 16 }]),
    });
    await Promise.all(clients.map((client) => client.close()));
  });

  it('exits cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
