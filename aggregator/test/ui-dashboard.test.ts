// The dashboard in a real browser against a real `toolmesh serve`, once on the embedded SQLite
// state and once on the shared stores (Redis under a key prefix of this run, PostgreSQL in a
// schema of its own): the same cases, since every page reads through the same state.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type ConnectedClient, resultText } from '@toolmesh/core/testing';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations,
  Browsers,
  openPage,
  pidOfFixture,
  SCREENSHOTS,
  signInWithForm as signInAt,
  signInCookie,
} from './dashboard-browser.js';
import { fixture, serveToolmesh, TICKETS_BIN, TOOLMESH_BIN, until } from './harness.js';
import { deleteKeys, dropSchema, POSTGRES_URL, REDIS_URL } from './state-backends.js';
import { sessionsCases } from './ui-sessions-cases.js';

const exec = promisify(execFile);
/** What a hostile tool call might carry, to be shown as text and never run or linked. */
const HOSTILE_TEXT =
  '<script>window.pwned = true</script><img src=x onerror="window.pwned = true"> [docs](javascript:window.pwned=true)';

type Store = 'sqlite' | 'redis+postgres';

/** The config's state and fleet settings and the environment for a store no other run sees; and how to remove it. */
function storeOf(store: Store) {
  if (store === 'sqlite') return { config: {}, env: {}, dispose: async () => undefined };
  const tag = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const prefix = `toolmesh-test:${tag}:`;
  const schema = `toolmesh_test_${tag}`;
  return {
    // A Redis makes toolmesh a fleet (of one replica here): its keys go under this run's prefix too.
    config: {
      state: { redis: REDIS_URL, postgres: POSTGRES_URL },
      fleet: { drainTimeoutMs: 1000 },
    },
    env: { TOOLMESH_REDIS_PREFIX: prefix, TOOLMESH_POSTGRES_SCHEMA: schema },
    dispose: async () => {
      await deleteKeys(prefix);
      await dropSchema(schema);
    },
  };
}

describe.each<Store>(['sqlite', 'redis+postgres'])('the dashboard on %s', (store) => {
  let folder: string;
  let configFile: string;
  let env: NodeJS.ProcessEnv;
  let serving: ReturnType<typeof serveToolmesh>;
  let base: string;
  let signInLink: string;
  let reviewerToken: string;
  let viewerToken: string;
  let dispose: () => Promise<void>;
  const browsers = new Browsers();
  const clients: ConnectedClient[] = [];
  /** Screenshots for docs/dashboard/ come from one run: the SQLite one, as most people run toolmesh. */
  const screenshot = (page: Page, name: string) =>
    store === 'sqlite' ? page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) }) : undefined;

  async function createToken(name: string, approver: boolean): Promise<string> {
    const made = await exec(
      process.execPath,
      [
        TOOLMESH_BIN,
        'token',
        'create',
        '--config',
        configFile,
        '--name',
        name,
        ...(approver ? ['--approver'] : []),
      ],
      { env: { ...process.env, ...env } },
    );
    const token = made.stdout.split('\n').find((line) => line.startsWith('tm_')) as string;
    // The server takes it at once on SQLite, and on Redis once it has read the tokens again (every 400 ms).
    await until(
      async () =>
        (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status === 200,
    );
    return token;
  }

  const newBrowser = () => browsers.open();
  const signInWithForm = (context: BrowserContext, token: string) => signInAt(context, base, token);

  const cookieFor = (token: string) => signInCookie(base, token);

  async function connectClient(): Promise<ConnectedClient> {
    const client = await serving.connect();
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-ui-')));
    configFile = path.join(folder, 'toolmesh.json');
    const stores = storeOf(store);
    dispose = stores.dispose;
    writeFileSync(
      configFile,
      JSON.stringify({
        mcpServers: {
          fixture: fixture('fixture'),
          victim: fixture('victim'),
          tickets: { command: process.execPath, args: [TICKETS_BIN, '--db', 'tickets.db'], cwd: folder },
        },
        toolPolicy: { fixture__echo: { requiresApproval: true } },
        ...stores.config,
      }),
    );
    env = { TOOLMESH_DATA_DIR: path.join(folder, 'data'), ...stores.env };
    serving = serveToolmesh(['--config', configFile, '--transport', 'http', '--port', '0'], folder, env);
    const url = await serving.url;
    base = url.replace(/\/mcp$/, '');
    signInLink = /dashboard: (http:\/\/\S+\/ui\/login\?code=\S+)/.exec(serving.stderr())?.[1] as string;
    reviewerToken = await createToken('reviewer', true);
    viewerToken = await createToken('viewer', false);
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  // A browser left open would keep its approver counted as connected into the next test.
  afterEach(() => browsers.closeAll());

  afterAll(async () => {
    await browsers.close();
    await Promise.allSettled(clients.map((client) => client.close()));
    // Gone before its keys are: a replica still running would write its heartbeat again.
    const exited = new Promise((resolve) => serving?.child.once('exit', resolve));
    if (serving?.child.exitCode === null) {
      serving.child.kill('SIGTERM');
      await exited;
    }
    await dispose?.();
    rmSync(folder, { recursive: true, force: true });
  });

  describe('signing in', () => {
    it('signs in once with the printed link; the session is an HttpOnly, SameSite=Strict cookie and the URL keeps no secret', async () => {
      expect(signInLink).toMatch(/\/ui\/login\?code=[\w-]{20,}$/);
      const context = await newBrowser();
      const page = context.pages()[0] ?? (await context.newPage());
      const transferred: Promise<number>[] = [];
      page.on('requestfinished', (request) =>
        transferred.push(request.sizes().then((sizes) => sizes.responseBodySize + sizes.responseHeadersSize)),
      );
      await page.goto(signInLink);
      expect(page.url()).toBe(`${base}/ui/`);
      await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
      await page.locator('table').waitFor();
      const firstLoad = (await Promise.all(transferred)).reduce((sum, bytes) => sum + bytes, 0);
      process.stderr.write(`dashboard: first load transferred ${firstLoad} bytes\n`);
      expect(firstLoad).toBeLessThan(200 * 1024);
      const token = await serving.token;
      expect(page.url()).not.toContain(token);
      expect(page.url()).not.toContain('code=');
      const [cookie] = await context.cookies(`${base}/ui/`);
      // Named for the port, so that a second toolmesh on this host keeps its own sign-in.
      expect(cookie).toMatchObject({
        name: `toolmesh_ui_${new URL(base).port}`,
        httpOnly: true,
        sameSite: 'Strict',
        path: '/ui',
      });
      expect(cookie?.value).not.toContain(token);
      expect(
        await page.evaluate(
          () => (globalThis as unknown as { document: { cookie: string } }).document.cookie,
        ),
      ).toBe('');

      const again = await fetch(signInLink, { redirect: 'manual' });
      expect(again.status).toBe(400);
      expect(await again.text()).toContain('used already');
    });

    it('refuses a wrong token at the form, saying what to do', async () => {
      const context = await newBrowser();
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(`${base}/ui/login`);
      await page.getByLabel('Token').fill('tm_not-a-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toContain('This token is not valid');
    });
  });

  describe('what the dashboard refuses', () => {
    it('answers nothing without the cookie, from a foreign Origin, or to a change without the CSRF token', async () => {
      const noCookie = await fetch(`${base}/ui/api/servers`);
      expect(noCookie.status).toBe(401);
      const pageWithout = await fetch(`${base}/ui/approvals`, { redirect: 'manual' });
      expect(pageWithout.status).toBe(303);
      expect(pageWithout.headers.get('location')).toBe('/ui/login');

      const cookie = await cookieFor(reviewerToken);
      const me = await fetch(`${base}/ui/api/me`, { headers: { cookie } });
      expect(me.status).toBe(200);
      const { csrf } = (await me.json()) as { csrf: string };
      // Another site, and another port of this machine (the same site, so the cookie would travel).
      for (const origin of ['http://evil.example', 'http://127.0.0.1:1']) {
        const foreign = await fetch(`${base}/ui/api/me`, { headers: { cookie, origin } });
        expect(foreign.status).toBe(403);
        const change = await fetch(`${base}/ui/api/approvals/any`, {
          method: 'POST',
          headers: { cookie, origin, 'x-csrf-token': csrf, 'content-type': 'application/json' },
          body: JSON.stringify({ decision: 'approve' }),
        });
        expect(change.status).toBe(403);
        const signIn = await fetch(`${base}/ui/login`, {
          method: 'POST',
          redirect: 'manual',
          headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token: reviewerToken }).toString(),
        });
        expect(signIn.status).toBe(403);
        expect(signIn.headers.get('set-cookie')).toBeNull();
      }
      const withoutCsrf = await fetch(`${base}/ui/api/approvals/any`, {
        method: 'POST',
        headers: { cookie, origin: base, 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'approve' }),
      });
      expect(withoutCsrf.status).toBe(403);
      expect(((await withoutCsrf.json()) as { error: string }).error).toMatch(/X-CSRF-Token/);
      const wrongCsrf = await fetch(`${base}/ui/api/approvals/any`, {
        method: 'POST',
        headers: { cookie, origin: base, 'x-csrf-token': `${csrf}x`, 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'approve' }),
      });
      expect(wrongCsrf.status).toBe(403);
      const rightCsrf = await fetch(`${base}/ui/api/approvals/any`, {
        method: 'POST',
        headers: { cookie, origin: base, 'x-csrf-token': csrf, 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'approve' }),
      });
      expect(rightCsrf.status).toBe(404);
      const malformed = await fetch(`${base}/ui/api/approvals/any`, {
        method: 'POST',
        headers: { cookie, origin: base, 'x-csrf-token': csrf, 'content-type': 'application/json' },
        body: '{"decision":',
      });
      expect(malformed.status).toBe(400);
    });

    it('signs a browser out as soon as its token is revoked, and ends its live stream', async () => {
      const cookie = await cookieFor(await createToken('short-lived', false));
      expect((await fetch(`${base}/ui/api/me`, { headers: { cookie } })).status).toBe(200);
      const stream = await fetch(`${base}/ui/api/events`, { headers: { cookie } });
      expect(stream.headers.get('content-type')).toBe('text/event-stream');
      const events = (stream.body as ReadableStream<Uint8Array>).getReader();
      await exec(process.execPath, [TOOLMESH_BIN, 'token', 'revoke', 'short-lived', '--config', configFile], {
        env: { ...process.env, ...env },
      });
      // At once on SQLite; on Redis within the moment every replica takes to read the tokens again.
      await until(async () => (await fetch(`${base}/ui/api/me`, { headers: { cookie } })).status === 401);
      const page = await fetch(`${base}/ui/servers`, { headers: { cookie }, redirect: 'manual' });
      expect(page.headers.get('location')).toBe('/ui/login');
      // The stream ends at its next heartbeat.
      for (;;) if ((await events.read()).done) break;
    });

    it('serves every page under a CSP that allows no inline script', async () => {
      const cookie = await cookieFor(viewerToken);
      const page = await fetch(`${base}/ui/tools`, { headers: { cookie } });
      expect(page.status).toBe(200);
      const policy = page.headers.get('content-security-policy') as string;
      expect(policy).toContain("script-src 'self'");
      expect(policy).not.toContain('unsafe-inline');
      expect(await page.text()).not.toMatch(/<script>|<script(?![^>]*\bsrc=)/);
    });
  });

  describe('approvals in the page', () => {
    it('shows a waiting call at once, as inert text; the approver approves and the call completes', async () => {
      const context = await newBrowser();
      const page = await signInWithForm(context, reviewerToken);
      await openPage(page, 'Approvals');
      await page.getByText('Nothing waits for approval.').waitFor();
      const { call } = await connectClient();

      const asked = Date.now();
      // An extra argument the tool ignores, but the approver sees: redacted, as in the audit.
      const waiting = call('fixture__echo', { text: HOSTILE_TEXT, api_key: 'sk-live-4f9a8b7c6d5e4f3a2b1c' });
      const card = page.locator('article.approval');
      await card.waitFor();
      // Reported, not asserted: timings vary with the machine's load.
      process.stderr.write(`dashboard: the request appeared ${Date.now() - asked} ms after the call\n`);
      await expect(card.locator('pre.arguments').textContent()).resolves.toContain(
        '<script>window.pwned = true</script>',
      );
      await expect(card.locator('pre.arguments').textContent()).resolves.toContain('api_key: "[redacted]"');
      await expect(card.textContent()).resolves.not.toContain('sk-live-4f9a8b7c6d5e4f3a2b1c');
      expect(await card.locator('script, img, a').count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as unknown as { pwned?: boolean }).pwned)).toBeUndefined();
      await expect(card.textContent()).resolves.toContain('asked by local');
      // The list is a live region; its ticking countdown must not be read out every second.
      expect(await page.locator('[aria-live="polite"]').count()).toBeGreaterThan(0);
      expect(await card.locator('.time-left').getAttribute('aria-live')).toBe('off');

      await card.getByLabel('Reason (told to the client)').fill('looks fine');
      await card.getByRole('button', { name: 'Approve' }).click();
      const result = await waiting;
      expect(result.isError).toBeFalsy();
      expect(resultText(result)).toBe(`fixture: ${HOSTILE_TEXT}`);
      await page.getByText('Nothing waits for approval.').waitFor();
      await page.locator('tbody tr', { hasText: 'approved' }).first().waitFor();
    });

    it('tells the client the reason of a deny; a viewer token sees the request but cannot decide it', async () => {
      const reviewerPage = await signInWithForm(await newBrowser(), reviewerToken);
      await openPage(reviewerPage, 'Approvals');
      const viewerPage = await signInWithForm(await newBrowser(), viewerToken);
      await openPage(viewerPage, 'Approvals');
      const { call } = await connectClient();
      const waiting = call('fixture__echo', { text: 'ship it on Friday' });

      const seen = viewerPage.locator('article.approval');
      await seen.waitFor();
      await expect(seen.textContent()).resolves.toContain('may see approvals but not decide them');
      expect(await seen.getByRole('button').count()).toBe(0);
      // Even a request crafted in the viewer's own page, with its CSRF token, is refused.
      const forged = await viewerPage.evaluate(async () => {
        const me = (await (await fetch('/ui/api/me')).json()) as { csrf: string };
        const queue = (await (await fetch('/ui/api/queue')).json()) as { pending: { id: string }[] };
        const response = await fetch(`/ui/api/approvals/${queue.pending[0]?.id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrf },
          body: JSON.stringify({ decision: 'approve' }),
        });
        return { status: response.status, body: (await response.json()) as { error: string } };
      });
      expect(forged.status).toBe(403);
      expect(forged.body.error).toMatch(/may see approvals but not decide them/);

      const card = reviewerPage.locator('article.approval');
      await card.waitFor();
      await screenshot(reviewerPage, 'approvals');
      // Keyboard only: the reason, then past Approve to Deny.
      await card.getByLabel('Reason (told to the client)').focus();
      await reviewerPage.keyboard.type('not on a Friday');
      await reviewerPage.keyboard.press('Tab');
      await reviewerPage.keyboard.press('Tab');
      expect(
        await reviewerPage.evaluate(
          () =>
            (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document
              .activeElement.textContent,
        ),
      ).toBe('Deny');
      await reviewerPage.keyboard.press('Enter');
      const denied = await waiting;
      expect(denied.isError).toBe(true);
      expect(resultText(denied)).toContain('not on a Friday');
      await viewerPage.getByText('Nothing waits for approval.').waitFor();
    });
  });

  describe('the other pages', () => {
    it('filters the audit as the CLI does, pages it, expands a record and exports JSON Lines', async () => {
      const { call } = await connectClient();
      await call('fixture__whoami');
      await call('victim__whoami');
      const page = await signInWithForm(await newBrowser(), reviewerToken);
      await openPage(page, 'Audit');
      await page.locator('table.audit tbody tr').first().waitFor();
      const detailNames = await page
        .getByRole('button', { name: 'Details' })
        .evaluateAll((buttons) => buttons.slice(0, 2).map((button) => button.getAttribute('aria-label')));
      expect(detailNames[0]).toContain('victim__whoami');
      expect(detailNames[1]).toContain('fixture__whoami');

      const cli = await exec(
        process.execPath,
        [
          TOOLMESH_BIN,
          'audit',
          '--config',
          configFile,
          '--tool',
          'fixture__*',
          '--identity',
          'local',
          '--json',
        ],
        { env: { ...process.env, ...env } },
      );
      const fromCli = JSON.parse(cli.stdout) as { tool: string; outcome: string }[];
      expect(fromCli.map((record) => record.tool)).toContain('fixture__whoami');
      const rows = page.locator('table.audit tbody tr[data-tool]');
      const shown = () => rows.evaluateAll((found) => found.map((row) => row.getAttribute('data-tool')));
      const showsExactly = async (tools: string[]) => {
        await until(async () => JSON.stringify(await shown()) === JSON.stringify(tools));
        expect(await shown()).toEqual(tools);
      };
      await page.getByLabel('Tool').fill('fixture__*');
      await page.getByLabel('Identity').fill('local');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await showsExactly(fromCli.map((record) => record.tool));

      const details = page.getByRole('button', { name: 'Details' }).first();
      await details.click();
      await expect(page.locator('dl.record').first().textContent()).resolves.toContain('Server');

      const exported = await page.evaluate(
        async (href) => (await fetch(href)).text(),
        (await page.getByRole('link', { name: 'Export JSON Lines' }).getAttribute('href')) as string,
      );
      const lines = exported
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { tool: string });
      expect(lines).toEqual(fromCli);

      const ok = fromCli.filter((record) => record.outcome === 'ok').map((record) => record.tool);
      await page.getByLabel('Outcome').selectOption('ok');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await showsExactly(ok);
      await page.getByRole('button', { name: 'Clear' }).click();
      await until(async () => (await rows.count()) > ok.length);
      await page.getByRole('button', { name: 'Details' }).last().click();
      await page.locator('dl.record').last().waitFor();
      await screenshot(page, 'audit');
    });

    it('pages the audit 50 records at a time', async () => {
      const { call } = await connectClient();
      for (let i = 0; i < 52; i++) await call('fixture__whoami');
      const page = await signInWithForm(await newBrowser(), viewerToken);
      await openPage(page, 'Audit');
      await page.getByLabel('Tool').fill('fixture__whoami');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      const rows = page.locator('table.audit tbody tr[data-tool]');
      await until(
        async () => (await rows.count()) === 50 && (await page.getByText('fixture__whoami').count()) === 50,
      );
      const newer = page.getByRole('button', { name: 'Newer' });
      expect(await newer.isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Older' }).click();
      await page.getByText('Page 2').waitFor();
      const cli = await exec(
        process.execPath,
        [
          TOOLMESH_BIN,
          'audit',
          '--config',
          configFile,
          '--tool',
          'fixture__whoami',
          '--limit',
          '1000',
          '--json',
        ],
        {
          env: { ...process.env, ...env },
        },
      );
      const total = (JSON.parse(cli.stdout) as unknown[]).length;
      expect(total).toBeGreaterThan(50);
      await until(async () => (await rows.count()) === Math.min(50, total - 50));
      expect(await newer.isDisabled()).toBe(false);
    });

    it('shows a server killed downstream as restarting, then ready', async () => {
      const page = await signInWithForm(await newBrowser(), viewerToken);
      const victim = page.locator('tr[data-server="victim"] [data-state]');
      await until(async () => (await victim.getAttribute('data-state')) === 'ready');
      // The fixture is a 2025 server: the revision toolmesh negotiated with it is shown beside it.
      expect(await page.locator('tr[data-server="victim"] td.revision').textContent()).toBe('2025-11-25');
      process.kill(pidOfFixture(serving.child.pid as number, 'victim'), 'SIGKILL');
      await until(async () => (await victim.getAttribute('data-state')) === 'restarting', 60_000);
      await until(async () => (await victim.getAttribute('data-state')) === 'ready', 60_000);
      await expect(page.locator('tr[data-server="victim"] td.restarts').textContent()).resolves.toBe('1');
    });

    it('has no serious or critical accessibility violation on any page, runs under its CSP, and screenshots each', async () => {
      await connectClient();
      const page = await signInWithForm(await newBrowser(), reviewerToken);
      const refused: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
      });
      // Keyboard only: past the skip link along the navigation to a page, and into it.
      const focused = () =>
        page.evaluate(
          () =>
            (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document
              .activeElement.textContent,
        );
      for (let tabs = 0; tabs < 10 && (await focused()) !== 'Audit'; tabs++) await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
      for (const name of ['Servers', 'Tools', 'Approvals', 'Audit', 'Sessions']) {
        await openPage(page, name);
        await page.locator('[aria-busy="true"]').waitFor({ state: 'detached' });
        expect({ page: name, violations: await axeViolations(page) }).toEqual({ page: name, violations: [] });
        if (name !== 'Approvals' && name !== 'Audit' && name !== 'Sessions')
          await screenshot(page, name.toLowerCase());
      }
      await page.goto(`${base}/ui/login`);
      expect({ page: 'sign-in', violations: await axeViolations(page) }).toEqual({
        page: 'sign-in',
        violations: [],
      });
      await screenshot(page, 'sign-in');
      expect(refused).toEqual([]);
    });

    it('searches the tools as search_tool_bm25 does and names what each mode does with them', async () => {
      const page = await signInWithForm(await newBrowser(), viewerToken);
      await openPage(page, 'Tools');
      await page.getByLabel('Search tools').fill('create ticket');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const first = page.locator('table.tools tbody tr').first();
      await until(async () => (await first.textContent())?.includes('tickets__create_ticket') ?? false);
      const { client } = await connectClient();
      const searched = await client.callTool({
        name: 'search_tool_bm25',
        arguments: { query: 'create ticket', limit: 3 },
      });
      const names = (searched.structuredContent as { results: { name: string }[] }).results.map(
        (hit) => hit.name,
      );
      const shown = await page
        .locator('table.tools tbody tr th code')
        .evaluateAll((cells) => cells.slice(0, 3).map((cell) => cell.textContent));
      expect(shown).toEqual(names);
      const echo = await fetch(`${base}/ui/api/tools?q=echo`, {
        headers: { cookie: await cookieFor(viewerToken) },
      });
      const { tools } = (await echo.json()) as {
        tools: { name: string; requiresApproval: boolean; modes: { verdict: string }[] }[];
      };
      expect(tools.find((tool) => tool.name === 'fixture__echo')).toMatchObject({ requiresApproval: true });
    });
  });

  sessionsCases(() => ({ serving, base, browsers, screenshot, createToken, reviewerToken }));
});
