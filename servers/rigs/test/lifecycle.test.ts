import { existsSync, lstatSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markedProcesses } from '../src/rigs/process-group.js';
import { type RigsFixture, rigsFixture, tempDir, until } from './fixture.js';
import { type PageServer, startPageServer } from './page-server.js';

let pages: PageServer;

beforeAll(async () => {
  pages = await startPageServer();
});
afterAll(async () => {
  await pages?.close();
});

/** The rig folders under the fixture's data directory. */
function rigFolders(fx: RigsFixture): string[] {
  const run = path.join(fx.dataDir, 'run');
  if (!existsSync(run)) return [];
  return readdirSync(run).flatMap((owner) =>
    readdirSync(path.join(run, owner)).map((rig) => path.join(run, owner, rig)),
  );
}

describe('rig lifecycle', () => {
  let fx: RigsFixture;
  beforeAll(async () => {
    fx = await rigsFixture({
      egress: { allowedOrigins: [pages.origin] },
      maxRigsPerWorkspace: 2,
      idleMs: 60_000,
    });
  });
  afterAll(() => fx.close());

  it('reuses one rig per conversation, keeps workspaces apart, and lists them', async () => {
    const s = await fx.connect();
    const args = { workspace_id: 'alpha', action: 'navigate', url: `${pages.origin}/form.html` };
    const first = (await s.inConversation('c1', 'browser_use', args)).structuredContent as { rig_id: string };
    const again = (await s.inConversation('c1', 'browser_use', args)).structuredContent as { rig_id: string };
    const other = (await s.inConversation('c2', 'browser_use', args)).structuredContent as { rig_id: string };
    expect(again.rig_id).toBe(first.rig_id);
    expect(other.rig_id).not.toBe(first.rig_id);
    const listed = await s.ok<{
      rigs: { id: string; surface: string; engine: string; status: string; notes: string[] }[];
    }>('rig_list', {
      workspace_id: 'alpha',
    });
    expect(listed.rigs.map((rig) => rig.id).sort()).toEqual([first.rig_id, other.rig_id].sort());
    expect(listed.rigs[0]).toMatchObject({ surface: 'browser', engine: 'chromium', status: 'ready' });
    if (process.getuid?.() === 0)
      expect(listed.rigs[0]?.notes.join(' ')).toMatch(/--no-sandbox: running as root/);
    expect((await s.ok<{ rigs: unknown[] }>('rig_list', { workspace_id: 'beta' })).rigs).toEqual([]);
    expect(await s.fails('rig_close', { workspace_id: 'beta', rig_id: first.rig_id })).toMatch(
      /no rig "rig-\w+" in workspace "beta"/,
    );
    expect(
      await s.fails('browser_use', { workspace_id: 'beta', action: 'back', rig_id: first.rig_id }),
    ).toMatch(/no rig/);
  });

  it('tells a client that asked for progress when it starts a rig, and only then', async () => {
    const s = await fx.connect();
    const heard: string[] = [];
    const call = () =>
      s.client.callTool(
        {
          name: 'browser_use',
          arguments: { workspace_id: 'beta', action: 'navigate', url: `${pages.origin}/second.html` },
        },
        undefined,
        { onprogress: (progress) => heard.push(progress.message ?? '') },
      );
    await call();
    expect(heard).toEqual(['starting a Chromium rig']);
    await call();
    expect(heard).toEqual(['starting a Chromium rig']);
    await fx.rigs.close('beta', fx.rigs.list('beta')[0]?.id as string);
  });

  it('closes the least recently used rig when a workspace is at its cap', async () => {
    const s = await fx.connect();
    const before = fx.rigs.list('alpha');
    expect(before).toHaveLength(2);
    const oldest = [...before].sort((a, b) => a.lastUsedAt.localeCompare(b.lastUsedAt))[0];
    await s.inConversation('c3', 'browser_use', {
      workspace_id: 'alpha',
      action: 'navigate',
      url: `${pages.origin}/second.html`,
    });
    const after = fx.rigs.list('alpha').map((rig) => rig.id);
    expect(after).toHaveLength(2);
    expect(after).not.toContain(oldest?.id);
  });

  it('leaves no process and no folder behind after rig_close', async () => {
    const s = await fx.connect();
    const rigs = fx.rigs.list('alpha');
    expect(markedProcesses(fx.dataDir).length).toBeGreaterThan(0);
    expect(rigFolders(fx)).toHaveLength(rigs.length);
    for (const rig of rigs) await s.ok('rig_close', { workspace_id: 'alpha', rig_id: rig.id });
    expect(markedProcesses(fx.dataDir)).toEqual([]);
    expect(rigFolders(fx)).toEqual([]);
    expect((await s.ok<{ rigs: unknown[] }>('rig_list', { workspace_id: 'alpha' })).rigs).toEqual([]);
  });
});

describe('idle rigs', () => {
  it('close after the idle time, processes and folder gone', async () => {
    const fx = await rigsFixture({ egress: { allowedOrigins: [pages.origin] }, idleMs: 1500 });
    try {
      const s = await fx.connect();
      await s.ok('browser_use', {
        workspace_id: 'alpha',
        action: 'navigate',
        url: `${pages.origin}/form.html`,
      });
      expect(markedProcesses(fx.dataDir).length).toBeGreaterThan(0);
      await until(() => fx.rigs.list('alpha').length === 0, 'the idle close');
      await until(
        () => markedProcesses(fx.dataDir).length === 0 && rigFolders(fx).length === 0,
        'nothing left',
      );
    } finally {
      await fx.close();
    }
  });
});

describe('probes', () => {
  it('answer for Android and iOS with what is missing, as errors', async () => {
    const fx = await rigsFixture();
    try {
      const s = await fx.connect();
      const mobile = await s.fails('mobile_use', { workspace_id: 'alpha', action: 'screenshot' });
      expect(mobile).toMatch(/^no device or emulator: /);
      expect(await s.fails('ios_use', { workspace_id: 'alpha', action: 'screenshot' })).toBe(
        'iOS needs macOS with Xcode',
      );
      const listed = await s.ok<{ surfaces: { surface: string; ready: boolean; detail: string }[] }>(
        'rig_list',
        { workspace_id: 'alpha' },
      );
      expect(listed.surfaces.find((surface) => surface.surface === 'browser')).toMatchObject({ ready: true });
      expect(listed.surfaces.find((surface) => surface.surface === 'ios')).toMatchObject({ ready: false });
    } finally {
      await fx.close();
    }
  });

  it('say how to get Chromium when there is none, without starting anything', async () => {
    const fx = await rigsFixture({ chromium: '/nonexistent/chromium' });
    try {
      const s = await fx.connect();
      expect(
        await s.fails('browser_use', {
          workspace_id: 'alpha',
          action: 'navigate',
          url: 'http://example.com/',
        }),
      ).toMatch(/^no Chromium at --chromium \/nonexistent\/chromium/);
      expect(fx.rigs.list('alpha')).toEqual([]);
    } finally {
      await fx.close();
    }
  });
});

describe('a deep data directory', () => {
  it.skipIf(!existsSync('/usr/bin/chromium'))(
    'still starts full Chromium, whose singleton socket needs a short TMPDIR, and leaves no link behind',
    { timeout: 90_000 },
    async () => {
      const outer = tempDir();
      const deep = await rigsFixture({
        dataDir: path.join(outer, 'a-rather-long-folder-name-for-data', 'and-another-one-below-it'),
        chromium: '/usr/bin/chromium',
        egress: { allowedOrigins: [pages.origin] },
      });
      try {
        const s = await deep.connect();
        const opened = await s.ok<{ rig_id: string; content: string }>('browser_use', {
          workspace_id: 'alpha',
          action: 'navigate',
          url: `${pages.origin}/form.html`,
        });
        expect(opened.content).toContain('title: Form page');
        expect(existsSync(`/tmp/toolmesh-${opened.rig_id}`)).toBe(true);
        await s.ok('rig_close', { workspace_id: 'alpha', rig_id: opened.rig_id });
        expect(existsSync(`/tmp/toolmesh-${opened.rig_id}`)).toBe(false);
        // A link a killed server left, to a folder since deleted, goes at the next start.
        const dangling = '/tmp/toolmesh-rig-0dead0ff';
        rmSync(dangling, { force: true });
        symlinkSync(path.join(outer, 'gone', 'tmp'), dangling);
        await (await rigsFixture()).close();
        expect(lstatSync(dangling, { throwIfNoEntry: false })).toBeUndefined();
      } finally {
        await deep.close();
        rmSync(outer, { recursive: true, force: true });
      }
    },
  );
});
