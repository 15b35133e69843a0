// What the dashboard's browser tests share: Debian's Chromium through playwright-core, signing
// in as a person does, axe-core, and finding the fixture servers a toolmesh started.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/**
 * Where the browser tests put their screenshots: docs/dashboard/ when asked
 * (`TOOLMESH_SCREENSHOTS=docs`), else one folder under the system's temporary folder, each run
 * overwriting the last, so a test run leaves the tree clean.
 */
export const SCREENSHOTS =
  process.env.TOOLMESH_SCREENSHOTS === 'docs'
    ? fileURLToPath(new URL('../../docs/dashboard/', import.meta.url))
    : path.join(os.tmpdir(), 'toolmesh-ui-screenshots');
mkdirSync(SCREENSHOTS, { recursive: true });
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * One Chromium for a test file, and a fresh context of it (cookies and storage of its own, as a
 * browser of its own would have) for each browser a test opens; the contexts a test opened are
 * closed together after it, the browser after the file (ui-dashboard.test.ts took 98 s with a
 * browser launched for each, 90 s so).
 */
export class Browsers {
  #browser: Promise<Browser> | undefined;
  #contexts: BrowserContext[] = [];

  /** A fresh browser context at 1280×800. */
  async open(): Promise<BrowserContext> {
    this.#browser ??= chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    const context = await (await this.#browser).newContext({ viewport: { width: 1280, height: 800 } });
    this.#contexts.push(context);
    return context;
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled(this.#contexts.splice(0).map((context) => context.close()));
  }

  /** Closes the contexts still open and the browser. */
  async close(): Promise<void> {
    await this.closeAll();
    const browser = this.#browser;
    this.#browser = undefined;
    // A browser that failed to launch failed its test already: the file's other clean-up goes on.
    await browser?.then((launched) => launched.close()).catch(() => undefined);
  }
}

/** A dashboard session cookie for plain HTTP requests, signed in through the form as a browser would. */
export async function signInCookie(base: string, token: string): Promise<string> {
  const response = await fetch(`${base}/ui/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });
  if (response.status !== 303)
    throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
  return (response.headers.get('set-cookie') as string).split(';')[0] as string;
}

export async function signInWithForm(context: BrowserContext, base: string, token: string): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${base}/ui/login`);
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/ui/`);
  return page;
}

export async function openPage(page: Page, name: string): Promise<void> {
  await page.getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

export async function axeViolations(page: Page): Promise<{ id: string; impact: string; nodes: unknown[] }[]> {
  // Evaluated by the DevTools protocol, which the page's CSP does not govern: the page itself runs no inline script.
  await page.evaluate(AXE_SOURCE);
  const results = (await page.evaluate(() =>
    (globalThis as unknown as { axe: { run: (options: object) => Promise<unknown> } }).axe.run({
      resultTypes: ['violations'],
    }),
  )) as { violations: { id: string; impact: string; nodes: unknown[] }[] };
  return results.violations.filter((violation) => ['serious', 'critical'].includes(violation.impact));
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** The pid of the fixture server that the toolmesh `toolmesh` started as `name` (its FIXTURE_NAME). */
export function pidOfFixture(toolmesh: number, name: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environment = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (!environment.includes(`FIXTURE_NAME=${name}`)) continue;
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('fixture-server.mjs')) continue;
      for (let pid = Number(entry); pid > 1; pid = parentOf(pid)) if (pid === toolmesh) return Number(entry);
    } catch {
      // A process that ended meanwhile, or one of another user.
    }
  }
  throw new Error(`no fixture server named ${name} runs under this toolmesh`);
}
