import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ToolError } from '@toolmesh/core';
import type { Browser, Dialog, ElementHandle, KeyInput, Page } from 'puppeteer-core';
import type { EgressProxy } from '../egress/egress-proxy.js';
import { DIE_WITH_PARENT, RIG_MARK } from '../process-group.js';
import type { BrowserAnswer, TabsOp } from './browser-driver.js';
import { jpegScreenshot } from './jpeg-screenshot.js';
import { firstLine, OutlineMachine } from './outline-machine.js';
import { PAGE_REF } from './page-outline.js';
import { staleRef } from './snapshot-book.js';

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
const ACTION_TIMEOUT_MS = 5000;
/** How long back waits for the earlier page before saying there was none. */
const BACK_WAIT_MS = 10_000;

/**
 * A headless Firefox driven by puppeteer-core over WebDriver BiDi. BiDi gives no accessibility
 * tree, so snapshots are the in-page outline; everything else BiDi carries: input, dialogs,
 * tabs and popups, console and network events, uploads, screenshots.
 */
export class FirefoxMachine extends OutlineMachine<Page> {
  readonly controller: string;
  readonly notes = [
    'snapshots are an in-page outline of roles and names (WebDriver BiDi has no accessibility tree)',
  ];
  readonly displaySize = { width: 1280, height: 720 };
  private readonly tabs = new Map<Page, string>();
  private readonly navigations = new WeakMap<Page, number>();
  private tabCount = 0;
  private current: Page;
  private dialog: Dialog | undefined;
  private dialogWaiter: (() => void) | undefined;

  private constructor(
    private readonly browser: Browser,
    first: Page,
    private readonly pid: number,
    proxy: EgressProxy,
    executable: string,
  ) {
    super('firefox', proxy);
    this.controller = `puppeteer-core over WebDriver BiDi to ${executable}`;
    this.current = first;
    this.register(first);
    browser.on('targetcreated', (target) => {
      void target.page().then((page) => page && this.register(page));
    });
  }

  static async launch(options: {
    executable: string;
    folder: string;
    proxy: EgressProxy;
  }): Promise<FirefoxMachine> {
    const { folder, executable, proxy } = options;
    const launcher = path.join(folder, 'firefox.sh');
    const pidFile = path.join(folder, 'browser.pid');
    writeFileSync(
      launcher,
      `#!/bin/sh\necho $$ > ${shellQuote(pidFile)}\nexec ${DIE_WITH_PARENT.join(' ')} ${shellQuote(executable)} "$@"\n`,
      { mode: 0o700 },
    );
    const proxyPort = Number(new URL(proxy.url).port);
    // An optional peer, loaded with the first Firefox rig (the probe says when it is missing).
    const { default: puppeteer } = await import('puppeteer-core');
    const browser = await puppeteer.launch({
      browser: 'firefox',
      protocol: 'webDriverBiDi',
      executablePath: launcher,
      headless: true,
      userDataDir: path.join(folder, 'profile'),
      env: { ...process.env, [RIG_MARK]: folder, TMPDIR: path.join(folder, 'tmp') },
      extraPrefsFirefox: {
        'network.proxy.type': 1,
        'network.proxy.http': '127.0.0.1',
        'network.proxy.http_port': proxyPort,
        'network.proxy.ssl': '127.0.0.1',
        'network.proxy.ssl_port': proxyPort,
        'network.proxy.share_proxy_settings': true,
        // Firefox sends loopback around a proxy unless told not to.
        'network.proxy.allow_hijacking_localhost': true,
        'network.proxy.no_proxies_on': '',
        'network.proxy.socks_remote_dns': true,
        'media.peerconnection.enabled': false,
        'browser.download.dir': path.join(folder, 'downloads'),
        'browser.download.folderList': 2,
      },
      defaultViewport: { width: 1280, height: 720 },
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: 60_000,
    });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const page = (await browser.pages())[0] ?? (await browser.newPage());
    return new FirefoxMachine(browser, page, pid, proxy, executable);
  }

  processGroups(): number[] {
    return [this.pid];
  }

  async close(): Promise<void> {
    try {
      await this.browser.close();
    } finally {
      await this.proxy.close();
    }
  }

  private register(page: Page): void {
    if (this.tabs.has(page)) return;
    this.tabs.set(page, `t${++this.tabCount}`);
    this.navigations.set(page, 0);
    const tab = () => this.tabs.get(page) ?? '?';
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) this.navigations.set(page, (this.navigations.get(page) ?? 0) + 1);
    });
    page.on('console', (message) =>
      this.keep(this.consoleLines, `[${tab()}] ${message.type()}: ${message.text()}`),
    );
    page.on('pageerror', (error) =>
      this.keep(this.consoleLines, `[${tab()}] page error: ${(error as Error).message}`),
    );
    page.on('requestfinished', (request) =>
      this.keep(
        this.networkLines,
        `[${tab()}] ${request.method()} ${request.url()} → ${request.response()?.status() ?? '?'}`,
      ),
    );
    page.on('requestfailed', (request) =>
      this.keep(
        this.networkLines,
        `[${tab()}] ${request.method()} ${request.url()} ✗ ${request.failure()?.errorText ?? 'failed'}`,
      ),
    );
    page.on('dialog', (dialog) => {
      this.dialog = dialog;
      this.dialogWaiter?.();
    });
    page.on('close', () => {
      this.tabs.delete(page);
      if (this.current === page) this.current = [...this.tabs.keys()].at(-1) ?? this.current;
    });
  }

  protected async currentTab() {
    const page = this.current;
    return { tab: page, id: this.tabs.get(page) ?? '?', navigations: this.navigations.get(page) ?? 0 };
  }

  protected evaluate<T>(fn: string, ...args: unknown[]): Promise<T> {
    this.refuseWhileDialog();
    return this.current.evaluate(`(${fn})(...${JSON.stringify(args)})`) as Promise<T>;
  }

  private refuseWhileDialog(): void {
    if (this.dialog) {
      throw new ToolError(
        `a ${this.dialog.type()} dialog is open on the page: answer it first with action dialog (accept true or false).`,
      );
    }
  }

  /** The element a ref of the last snapshot names; a stale ref fails at once. */
  private async element(ref: string): Promise<ElementHandle> {
    await this.checkRef(ref);
    const handle = await this.current.evaluateHandle(
      `${PAGE_REF}(${JSON.stringify(this.refKey)}, ${JSON.stringify(ref)})`,
    );
    const element = handle.asElement() as ElementHandle | null;
    if (!element) {
      await handle.dispose();
      throw staleRef(ref, 'its element left the page');
    }
    return element;
  }

  /**
   * Runs an input action, stopping early when it opens a dialog (the page waits for an answer)
   * and adopting a tab it opened as the current one.
   */
  private async act(run: () => Promise<unknown>, done: string): Promise<BrowserAnswer> {
    this.refuseWhileDialog();
    const before = new Set(this.tabs.keys());
    const dialogOpened = new Promise<'dialog'>((resolve) => {
      this.dialogWaiter = () => resolve('dialog');
    });
    const action = run().then(() => 'done' as const);
    let outcome: 'done' | 'dialog';
    try {
      outcome = await Promise.race([action, dialogOpened]);
    } catch (error) {
      throw new ToolError(`${done} failed: ${firstLine(error)}`);
    } finally {
      this.dialogWaiter = undefined;
    }
    if (outcome === 'dialog' && this.dialog) {
      action.catch(() => undefined);
      const { id } = await this.currentTab();
      return {
        tab: id,
        body: `dialog (${this.dialog.type()}): ${this.dialog.message()}`,
        notes: [
          done,
          `a ${this.dialog.type()} dialog opened: answer it with action dialog (accept true or false).`,
        ],
      };
    }
    const opened = (await this.browser.pages()).find((page) => !before.has(page) && !page.isClosed());
    if (opened) {
      this.register(opened);
      this.current = opened;
      await opened
        .waitForNavigation({ waitUntil: 'domcontentloaded', timeout: ACTION_TIMEOUT_MS })
        .catch(() => undefined);
      return this.answer([
        done,
        `the action opened a popup; rigs adopted it as tab ${this.tabs.get(opened)}, now the current tab.`,
      ]);
    }
    return this.answer([done]);
  }

  /** Runs `use` on a ref's element, releasing the handle after. */
  private async onElement(ref: string, use: (element: ElementHandle) => Promise<unknown>, done: string) {
    const element = await this.element(ref);
    try {
      return await this.act(() => use(element), done);
    } finally {
      await element.dispose().catch(() => undefined);
    }
  }

  async navigate(url: string): Promise<BrowserAnswer> {
    this.refuseWhileDialog();
    let status: number | undefined;
    try {
      const response = await this.current.goto(url, { waitUntil: 'domcontentloaded', timeout: 30_000 });
      status = response?.status();
      const refusal = response?.headers()['x-toolmesh-refused'];
      if (refusal) throw new ToolError(decodeURI(refusal));
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw new ToolError(`navigate to ${url} failed: ${firstLine(error)}`);
    }
    return this.answer([`navigated${status !== undefined ? ` (HTTP ${status})` : ''}`]);
  }

  /**
   * history.back(), then waits for the page to change: over BiDi, puppeteer's goBack waits for a
   * load event that a page restored from the back-forward cache never fires.
   */
  async back(): Promise<BrowserAnswer> {
    this.refuseWhileDialog();
    const page = this.current;
    const before = page.url();
    const navigations = this.navigations.get(page) ?? 0;
    await page.evaluate('history.back()');
    const deadline = Date.now() + BACK_WAIT_MS;
    let moved = false;
    while (!moved && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const ready = await this.evaluate<boolean>('() => document.readyState !== "loading"').catch(
        () => false,
      );
      moved = ready && page.url() !== before;
    }
    // The refs of the page left behind must go stale even if no navigation event said so.
    if (moved && (this.navigations.get(page) ?? 0) === navigations)
      this.navigations.set(page, navigations + 1);
    return this.answer([moved ? 'went back' : `the page stayed at ${before}: there was no earlier page`]);
  }

  click(ref: string, button: 'left' | 'right' | 'middle' = 'left', double = false): Promise<BrowserAnswer> {
    return this.onElement(
      ref,
      (element) => element.click({ button, count: double ? 2 : 1 }),
      `clicked ${ref}`,
    );
  }

  fill(ref: string, text: string): Promise<BrowserAnswer> {
    return this.onElement(
      ref,
      (element) => element.asLocator().setTimeout(ACTION_TIMEOUT_MS).fill(text),
      `filled ${ref}`,
    );
  }

  select(ref: string, values: string[]): Promise<BrowserAnswer> {
    return this.onElement(
      ref,
      async (element) => {
        const found = await this.optionsOf(ref, values);
        return element.select(...found);
      },
      `selected in ${ref}`,
    );
  }

  hover(ref: string): Promise<BrowserAnswer> {
    return this.onElement(ref, (element) => element.hover(), `hovered ${ref}`);
  }

  async press(key: string, ref?: string): Promise<BrowserAnswer> {
    const parts = key.split('+') as KeyInput[];
    const press = async () => {
      for (const part of parts.slice(0, -1)) await this.current.keyboard.down(part);
      await this.current.keyboard.press(parts.at(-1) as KeyInput);
      for (const part of parts.slice(0, -1).reverse()) await this.current.keyboard.up(part);
    };
    if (ref === undefined) return this.act(press, `pressed ${key}`);
    return this.onElement(
      ref,
      async (element) => {
        await element.focus();
        await press();
      },
      `pressed ${key}`,
    );
  }

  async drag(ref: string, targetRef: string): Promise<BrowserAnswer> {
    const source = await this.element(ref);
    const target = await this.element(targetRef);
    try {
      return await this.act(async () => {
        const from = await source.clickablePoint();
        const to = await target.clickablePoint();
        const mouse = this.current.mouse;
        await mouse.move(from.x, from.y);
        await mouse.down();
        await mouse.move(to.x, to.y, { steps: 5 });
        await mouse.up();
      }, `dragged ${ref} to ${targetRef}`);
    } finally {
      await Promise.all([source.dispose(), target.dispose()]).catch(() => undefined);
    }
  }

  upload(ref: string, files: string[]): Promise<BrowserAnswer> {
    return this.onElement(
      ref,
      async (element) => {
        const isFileInput = await element.evaluate(
          (node) => node.tagName === 'INPUT' && node.getAttribute('type') === 'file',
        );
        if (!isFileInput) {
          throw new ToolError(
            `${ref} is not a file input: upload on engine firefox takes an <input type=file>'s ref.`,
          );
        }
        await (element as unknown as { uploadFile(...paths: string[]): Promise<void> }).uploadFile(...files);
      },
      `uploaded ${files.length} file(s) through ${ref}`,
    );
  }

  async answerDialog(accept: boolean, promptText?: string): Promise<BrowserAnswer> {
    const dialog = this.dialog;
    if (!dialog) throw new ToolError('no dialog is open: dialog answers one that an action opened.');
    this.dialog = undefined;
    await (accept ? dialog.accept(promptText) : dialog.dismiss());
    return this.answer([`${accept ? 'accepted' : 'dismissed'} the ${dialog.type()} dialog`]);
  }

  async tabsAction(op: TabsOp, tab?: string): Promise<BrowserAnswer> {
    if (op !== 'list') {
      const page = [...this.tabs].find(([, id]) => id === tab)?.[0];
      if (!page) {
        throw new ToolError(
          `no tab ${JSON.stringify(tab)}: the tabs are ${[...this.tabs.values()].join(', ')}.`,
        );
      }
      if (op === 'select') {
        this.current = page;
        await page.bringToFront();
      } else {
        if (this.tabs.size === 1)
          throw new ToolError(`${tab} is the only tab: rig_close closes the whole rig.`);
        await page.close();
      }
    }
    const lines = await Promise.all(
      [...this.tabs].map(
        async ([page, id]) =>
          `${page === this.current ? '*' : ' '} ${id} ${page.url()} ${await page.title().catch(() => '')}`,
      ),
    );
    const { id } = await this.currentTab();
    return {
      tab: id,
      body: lines.join('\n'),
      notes: [op === 'list' ? 'tabs (* current)' : `${op === 'select' ? 'selected' : 'closed'} ${tab}`],
    };
  }

  async screenshot(): Promise<BrowserAnswer> {
    this.refuseWhileDialog();
    const image = await jpegScreenshot(async (quality) =>
      Buffer.from(await this.current.screenshot({ type: 'jpeg', quality })),
    );
    return {
      ...(await this.answer([
        `screenshot ${this.displaySize.width}×${this.displaySize.height}, ${Math.round(image.length / 1024)} KB JPEG`,
      ])),
      image,
    };
  }
}
