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
    await use({ action: 'clipboard', text: 'copied through rigs' });
    expect((await use({ action: 'clipboard' })).content).toMatch(
      /^<untrusted-content[\s\S]*\ncopied through rigs\n<\/untrusted-content/,
    );
  });

  it('drags by refs, and extracts the accessibility tree and the text', { timeout: 120_000 }, async () => {
    await use({ action: 'navigate', url: `${pages.origin}/drag.html` });
    const tree = (await use({ action: 'extract', what: 'accessibility' })).content;
    expect(tree).toMatch(/^<untrusted-content[\s\S]*- button "Card" \[ref=e\d+\]/);
    const card = refOf(tree, /button "Card"/);
    const bin = refOf(tree, /region "Bin"/);
    const dragged = await use({ action: 'drag', ref: card, target_ref: bin });
    expect(dragged.notes).toContain(`dragged ${card} to ${bin}`);
    expect((await use({ action: 'extract', scope: '#dropped' })).content).toContain('dropped Card on Bin');
    const text = (await use({ action: 'extract' })).content;
    expect(text).toMatch(/Card[\s\S]*Bin[\s\S]*dropped Card on Bin/);
    expect(text).not.toContain('[ref=');
    expect(await fails({ action: 'extract', scope: '#nothing-here' })).toMatch(/matches nothing on the page/);
  });

  it('uploads a file from the roots through a file input, and goes back', { timeout: 120_000 }, async () => {
    await use({ action: 'navigate', url: `${pages.origin}/form.html` });
    await use({ action: 'navigate', url: `${pages.origin}/upload.html` });
    const input = refOf((await use({ action: 'snapshot' })).content, /"Attachment"/);
    expect(await fails({ action: 'upload', ref: input, paths: ['/etc/passwd'] })).toMatch(/upload refused/);
    const uploaded = await use({ action: 'upload', ref: input, paths: [path.join(root, 'note.txt')] });
    expect(uploaded.notes).toContain(`uploaded 1 file(s) through ${input}`);
    expect((await use({ action: 'extract', scope: '#names' })).content).toContain('note.txt:12');
    const chooser = refOf((await use({ action: 'snapshot' })).content, /button "Choose a file"/);
    expect(await fails({ action: 'upload', ref: chooser, paths: [path.join(root, 'note.txt')] })).toMatch(
      new RegExp(
        `engine ${engine} cannot do upload through an element that opens a file chooser .*use engine chromium`,
      ),
    );
    expect((await use({ action: 'back' })).content).toContain('title: Form page');
  });

  it('tells console messages and network requests since the last call', { timeout: 120_000 }, async () => {
    await use({ action: 'navigate', url: `${pages.origin}/form.html` });
    await use({ action: 'console' });
    await use({ action: 'network' });
    const snap = (await use({ action: 'snapshot' })).content;
    await use({ action: 'click', ref: refOf(snap, /button "Log"/) });
    let logged = '';
    await expect
      .poll(async () => {
        logged += (await use({ action: 'console' })).content;
        return logged;
      })
      .toMatch(/log: hello from the page[\s\S]*error: something broke/);
    await use({ action: 'navigate', url: `${pages.origin}/second.html` });
    let seen = '';
    await expect
      .poll(async () => {
        seen += (await use({ action: 'network' })).content;
        return seen;
      })
      .toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/second\.html → 200/);
    expect((await use({ action: 'network' })).content).not.toContain('second.html');
  });

  it.runIf(engine === 'webkit')(
    'keeps its WebDriver port to rigs: a second session is refused, and a command needs the session id',
    async () => {
      const [rig] = fx.rigs.list('alpha');
      const driver = /WebKitWebDriver on (127\.0\.0\.1:\d+)/.exec(rig?.controller ?? '')?.[1];
      expect(driver).toBeDefined();
      const second = await fetch(`http://${driver}/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ capabilities: {} }),
      });
      expect(second.ok).toBe(false);
      expect(await second.text()).toMatch(/session not created/);
      const guessed = await fetch(`http://${driver}/session/00000000-0000-4000-8000-000000000000/url`);
      expect(guessed.status).toBe(404);
      expect(await guessed.text()).toMatch(/invalid session id/);
      // The rig's own session still answers.
      expect((await use({ action: 'tabs' })).content).toMatch(/\* t\d+ /);
    },
  );

  it('leaves no process behind after rig_close', async () => {
    const [rig] = fx.rigs.list('alpha');
    expect(markedProcesses(fx.dataDir).length).toBeGreaterThan(0);
    await s.ok('rig_close', { workspace_id: 'alpha', rig_id: rig?.id });
    expect(markedProcesses(fx.dataDir)).toEqual([]);
  });
});
