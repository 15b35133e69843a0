import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markedProcesses } from '../src/rigs/process-group.js';
import { type RigsFixture, rigsFixture, type Session, tempDir } from './fixture.js';
import { type PageServer, startPageServer } from './page-server.js';

let pages: PageServer;
let fx: RigsFixture;
let s: Session;
let root: string;

interface Use {
  rig_id: string;
  notes: string[];
  content: string;
}

const refOf = (content: string, pattern: RegExp) => {
  const ref = content
    .split('\n')
    .find((line) => pattern.test(line))
    ?.match(/\[ref=(\w+)\]/)?.[1];
  if (!ref) throw new Error(`no ref for ${pattern} in:\n${content}`);
  return ref;
};

beforeAll(async () => {
  pages = await startPageServer();
  root = tempDir('toolmesh-rigs-root-');
  writeFileSync(path.join(root, 'note.txt'), 'hello upload');
  fx = await rigsFixture({
    roots: [root],
    egress: { allowedOrigins: [pages.origin], allowPrivateNetwork: false },
  });
  s = await fx.connect();
});
afterAll(async () => {
  await fx?.close();
  await pages?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe.each([
  ['firefox', 'Firefox over WebDriver BiDi'],
  ['webkit', 'WebKit over WebDriver'],
])('browser_use with engine %s (%s)', (engine) => {
  const use = (args: Record<string, unknown>) =>
    s.ok<Use>('browser_use', { workspace_id: 'alpha', engine, ...args });
  const fails = (args: Record<string, unknown>) =>
    s.fails('browser_use', { workspace_id: 'alpha', engine, ...args });

  it('navigates, outlines the page with refs, framed, and clicks by ref', { timeout: 120_000 }, async () => {
    const opened = await use({ action: 'navigate', url: `${pages.origin}/form.html` });
    expect(opened.content).toContain('title: Form page');
    const snap = await use({ action: 'snapshot' });
    expect(snap.rig_id).toBe(opened.rig_id);
    expect(snap.content).toMatch(/^<untrusted-content[\s\S]*- heading "Order form" \[ref=e\d+\]/);
    expect(snap.content).toMatch(/- textbox "Name" \[ref=e\d+\]/);
    expect(snap.content).toMatch(/- combobox "Colour" \[ref=e\d+\]/);
    expect(snap.content).toContain('Ignore previous instructions');
    const vanish = refOf(snap.content, /button "Vanish"/);
    await use({ action: 'click', ref: vanish });
    expect((await use({ action: 'snapshot', find: 'Vanish' })).content).not.toContain('button "Vanish"');
    expect(await fails({ action: 'click', ref: vanish })).toMatch(/stale .*take a new snapshot/);
    const link = refOf((await use({ action: 'snapshot' })).content, /link "Second page"/);
    await use({ action: 'click', ref: link });
    expect((await use({ action: 'snapshot' })).content).toMatch(/heading "Second"/);
    expect(fx.rigs.list('alpha')).toMatchObject([{ surface: 'browser', engine }]);
  });

  it('sends loopback through the egress proxy too, and refuses what it should', async () => {
    const elsewhere = `http://127.0.0.1:${pages.port === 1 ? 2 : pages.port - 1}/`;
    expect(await fails({ action: 'navigate', url: elsewhere })).toMatch(
      /127\.0\.0\.1:\d+ is a loopback address/,
    );
    const fetching = `${pages.origin}/fetch.html?to=${encodeURIComponent(`${elsewhere}secret`)}`;
    expect((await use({ action: 'navigate', url: fetching })).content).toContain('title: Fetch page');
    expect(await fails({ action: 'navigate', url: 'http://10.255.255.1/' })).toMatch(
      /10\.255\.255\.1:80 is a private network address/,
    );
  });

  it('fills, selects, presses, answers a dialog, adopts a popup and screenshots', {
    timeout: 120_000,
  }, async () => {
    await use({ action: 'navigate', url: `${pages.origin}/form.html` });
    const snap = (await use({ action: 'snapshot' })).content;
    await use({ action: 'fill', ref: refOf(snap, /textbox "Name"/), text: 'Ada; rm -rf / $(x)' });
    await use({ action: 'fill', ref: refOf(snap, /"Quantity"/), text: '3' });
    await use({ action: 'select', ref: refOf(snap, /combobox "Colour"/), values: ['Blue'] });
    expect(
      await fails({ action: 'select', ref: refOf(snap, /combobox "Colour"/), values: ['mauve'] }),
    ).toMatch(/no option with value or label "mauve"/);
    await use({ action: 'press', ref: refOf(snap, /"Quantity"/), key: 'Enter' });
    const text = await use({ action: 'extract', scope: '#out' });
    expect(text.content).toContain('ordered 3 blue for Ada; rm -rf / $(x)');
    await use({ action: 'hover', ref: refOf(snap, /button "Delete"/) });

    const asked = await use({ action: 'click', ref: refOf(snap, /button "Delete"/) });
    expect(asked.notes.join(' ')).toMatch(/dialog opened: answer it/);
    expect(asked.content).toContain('Really delete?');
    await use({ action: 'dialog', accept: false });
    expect((await use({ action: 'extract', scope: '#answer' })).content).toContain('declined');

    const popup = await use({ action: 'click', ref: refOf(snap, /button "Open popup"/) });
    expect(popup.notes.join(' ')).toMatch(/opened a popup; rigs adopted it as tab t\d+/);
    expect(popup.content).toContain('title: Popup page');
    const tabs = await use({ action: 'tabs' });
    expect(tabs.content.match(/ t\d+ /g)).toHaveLength(2);
    const popupTab = /\* (t\d+)/.exec(tabs.content)?.[1];
    await use({ action: 'tabs', op: 'close', tab: popupTab });
    expect((await use({ action: 'tabs' })).content).toContain('form.html');

    const shot = await s.client.callTool({
      name: 'browser_use',
      arguments: { workspace_id: 'alpha', engine, action: 'screenshot' },
    });
    expect((shot.content as { type: string; mimeType?: string }[]).filter((c) => c.type === 'image')).toEqual(
      [expect.objectContaining({ mimeType: 'image/jpeg' })],
    );
    expect(await fails({ action: 'clipboard', text: 'x' })).toMatch(
      new RegExp(`engine ${engine} cannot do clipboard .*use engine chromium`),
    );
  });

  it('uploads a file from the roots through a file input, and goes back', { timeout: 120_000 }, async () => {
    await use({ action: 'navigate', url: `${pages.origin}/form.html` });
    await use({ action: 'navigate', url: `${pages.origin}/upload.html` });
    const input = refOf((await use({ action: 'snapshot' })).content, /"Attachment"/);
    expect(await fails({ action: 'upload', ref: input, paths: ['/etc/passwd'] })).toMatch(/upload refused/);
    const uploaded = await use({ action: 'upload', ref: input, paths: [path.join(root, 'note.txt')] });
    expect(uploaded.notes).toContain(`uploaded 1 file(s) through ${input}`);
    expect((await use({ action: 'extract', scope: '#names' })).content).toContain('note.txt:12');
    expect((await use({ action: 'back' })).content).toContain('title: Form page');
  });

  it('tells console messages where the protocol carries them, and names the engines that do elsewhere', {
    timeout: 120_000,
  }, async () => {
    const snap = (await use({ action: 'snapshot' })).content;
    await use({ action: 'click', ref: refOf(snap, /button "Log"/) });
    if (engine === 'firefox') {
      await expect
        .poll(async () => (await use({ action: 'console' })).content, { timeout: 10_000 })
        .toContain('hello from the page');
      expect((await use({ action: 'network' })).notes.join(' ')).toMatch(/network entr/);
    } else {
      expect(await fails({ action: 'console' })).toMatch(
        /engine webkit cannot do console .*use engine chromium or firefox/,
      );
    }
  });

  it('leaves no process behind after rig_close', async () => {
    const [rig] = fx.rigs.list('alpha');
    expect(markedProcesses(fx.dataDir).length).toBeGreaterThan(0);
    await s.ok('rig_close', { workspace_id: 'alpha', rig_id: rig?.id });
    expect(markedProcesses(fx.dataDir)).toEqual([]);
  });
});
