import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markedProcesses } from '../src/rigs/process-group.js';
import { type RigsFixture, rigsFixture, type Session } from './fixture.js';
import { type PageServer, startPageServer } from './page-server.js';

let pages: PageServer;
let fx: RigsFixture;
let s: Session;

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
  fx = await rigsFixture({ egress: { allowedOrigins: [pages.origin], allowPrivateNetwork: false } });
  s = await fx.connect();
});
afterAll(async () => {
  await fx?.close();
  await pages?.close();
});

describe.each([
  ['firefox', 'Firefox over WebDriver BiDi'],
  ['webkit', 'WebKit over WebDriver'],
])('browser_use with engine %s (%s)', (engine) => {
  const use = (args: Record<string, unknown>) =>
    s.ok<Use>('browser_use', { workspace_id: 'alpha', engine, ...args });
  const fails = (args: Record<string, unknown>) =>
    s.fails('browser_use', { workspace_id: 'alpha', engine, ...args });

  it('navigates, outlines the page with refs, framed, and clicks by ref', { timeout: 90_000 }, async () => {
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
    expect(await fails({ action: 'screenshot' })).toMatch(
      new RegExp(`engine ${engine} does navigate, snapshot, click in this build`),
    );
  });

  it('leaves no process behind after rig_close', async () => {
    const [rig] = fx.rigs.list('alpha');
    expect(markedProcesses(fx.dataDir).length).toBeGreaterThan(0);
    await s.ok('rig_close', { workspace_id: 'alpha', rig_id: rig?.id });
    expect(markedProcesses(fx.dataDir)).toEqual([]);
  });
});
