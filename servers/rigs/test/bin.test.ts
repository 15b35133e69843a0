import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectHttpClient, spawnStdioClient, toolExpectations } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markedProcesses } from '../src/rigs/process-group.js';
import { tempDir, until } from './fixture.js';
import { type PageServer, startPageServer } from './page-server.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
let pages: PageServer;
let data: string;

beforeAll(async () => {
  pages = await startPageServer();
  data = tempDir('toolmesh-rigs-bin-');
});
afterAll(async () => {
  await pages?.close();
  rmSync(data, { recursive: true, force: true });
});

const owners = () =>
  existsSync(path.join(data, 'rigs', 'run')) ? readdirSync(path.join(data, 'rigs', 'run')) : [];

/** The rig folder (of the one owner) that holds `file`. */
function rigFolderWith(file: string): string {
  const owner = path.join(data, 'rigs', 'run', owners()[0] as string);
  return readdirSync(owner).find((rig) => existsSync(path.join(owner, rig, file))) as string;
}

describe('toolmesh-rigs over real stdio', () => {
  it('drives Chromium, Firefox and a desktop; after kill -9 nothing survives, and the next start sweeps the folder and the X lock', {
    timeout: 120_000,
  }, async () => {
    const start = () =>
      spawnStdioClient(process.execPath, [BIN, '--allow-origin', pages.origin, '--workspace', 'w'], {
        env: { TOOLMESH_DATA_DIR: data },
      });
    const server = await start();
    const names = (await server.client.listTools()).tools.map((tool) => tool.name).sort();
    expect(names).toEqual(['browser_use', 'computer_use', 'ios_use', 'mobile_use', 'rig_close', 'rig_list']);
    const { ok } = toolExpectations(server);
    const opened = await ok<{ content: string }>('browser_use', {
      action: 'navigate',
      url: `${pages.origin}/second.html`,
    });
    expect(opened.content).toContain('title: Second page');
    const firefox = await ok<{ content: string }>('browser_use', {
      engine: 'firefox',
      action: 'navigate',
      url: `${pages.origin}/second.html`,
    });
    expect(firefox.content).toContain('title: Second page');
    const desktop = await ok<{ notes: string[] }>('computer_use', {
      action: 'launch',
      argv: ['xmessage', 'left behind?'],
    });
    expect(desktop.notes).toEqual(['started xmessage; its window is up']);
    const display = readFileSync(
      path.join(data, 'rigs', 'run', owners()[0] as string, rigFolderWith('display'), 'display'),
      'utf8',
    );
    expect(existsSync(`/tmp/.X${display}-lock`)).toBe(true);
    expect(markedProcesses(path.join(data, 'rigs'))).not.toEqual([]);
    expect(owners()).toHaveLength(1);
    // Playwright's own artifacts folder lands in the server's run folder, so the sweep takes it too.
    expect(readdirSync(path.join(data, 'rigs', 'run', owners()[0] as string, '.tmp')).join(' ')).toMatch(
      /playwright-artifacts-/,
    );

    const [dead] = owners();
    process.kill(server.pid as number, 'SIGKILL');
    await until(
      () => markedProcesses(path.join(data, 'rigs')).length === 0,
      'the browser to die with its server',
    );
    await server.close().catch(() => undefined);
    expect(owners()).toHaveLength(1);

    const next = await start();
    await until(() => !owners().includes(dead as string), 'the sweep of the dead server’s folder');
    expect(existsSync(`/tmp/.X${display}-lock`)).toBe(false);
    expect(existsSync(`/tmp/.X11-unix/X${display}`)).toBe(false);
    await next.close();
    await until(() => owners().length === 0, 'the clean exit to remove its own folder');
  });
});

describe('toolmesh-rigs over Streamable HTTP', () => {
  it('gives each MCP session its own rig, and ends them all on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [BIN, '--allow-origin', pages.origin, '--transport', 'http', '--port', '0'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, TOOLMESH_DATA_DIR: data },
      },
    );
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
        const found = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
        if (found) resolve(found[1] as string);
      });
      child.once('exit', () => reject(new Error(`exited early: ${stderr}`)));
    });
    try {
      const [one, two] = await Promise.all([connectHttpClient(url), connectHttpClient(url)]);
      const navigate = { action: 'navigate', url: `${pages.origin}/second.html` };
      const first = await toolExpectations(one).ok<{ rig_id: string }>('browser_use', navigate);
      const again = await toolExpectations(one).ok<{ rig_id: string }>('browser_use', navigate);
      const other = await toolExpectations(two).ok<{ rig_id: string }>('browser_use', navigate);
      expect(again.rig_id).toBe(first.rig_id);
      expect(other.rig_id).not.toBe(first.rig_id);
      const listed = await toolExpectations(two).ok<{ rigs: unknown[] }>('rig_list');
      expect(listed.rigs).toHaveLength(2);
      expect(markedProcesses(path.join(data, 'rigs'))).not.toEqual([]);
      await Promise.all([one.close(), two.close()]);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    expect(markedProcesses(path.join(data, 'rigs'))).toEqual([]);
    expect(
      owners(),
      JSON.stringify(
        owners().map((owner) => readdirSync(path.join(data, 'rigs', 'run', owner), { recursive: true })),
      ),
    ).toEqual([]);
  });
});
