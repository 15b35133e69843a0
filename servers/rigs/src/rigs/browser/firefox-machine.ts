import path from 'node:path';
import { ToolError } from '@toolmesh/core';
import type { Browser, ElementHandle, KeyInput, Page } from 'puppeteer-core';
import type { EgressProxy } from '../egress/egress-proxy.js';
import { endRigProcesses, RIG_MARK } from '../process-group.js';
import { type BrowserAnswer, unsupported } from './browser-driver.js';
import { launchUnderLauncher } from './browser-launcher.js';
import { jpegScreenshot } from './jpeg-screenshot.js';
import { firstLine } from './outline-machine.js';
import { TabbedMachine } from './tabbed-machine.js';

/** puppeteer's BiDi browser, whose connection sends commands and events for the whole browser. */
interface BidiBrowser {
  connection: {
    send(method: string, params: object): Promise<unknown>;
    on(event: string, listener: (params: AuthRequired) => void): unknown;
  };
}

interface AuthRequired {
  isBlocked: boolean;
  context?: string | null;
  request: { request: string };
}

/**
 * Holds every 407 of the egress proxy until it is answered with the rig's credentials: a
 * browser-wide interception, since a tab's own would come after a popup's first request.
 * puppeteer answers the requests of the tabs it knows, with the credentials `register` gives each
 * page (a second answer would fail inside puppeteer, unheard); rigs answers the ones of no tab.
 */
async function answerProxyAuth(browser: BidiBrowser, credentials: { username: string; password: string }) {
  const { connection } = browser;
  connection.on('network.authRequired', (event) => {
    if (!event.isBlocked || event.context) return;
    connection
      .send('network.continueWithAuth', {
        request: event.request.request,
        action: 'provideCredentials',
        credentials: { type: 'password', ...credentials },
      })
      .catch(() => undefined);
  });
  await connection.send('network.addIntercept', { phases: ['authRequired'] });
}

const ACTION_TIMEOUT_MS = 5000;
/**
 * How long one WebDriver BiDi command may take, `session.new` at launch included. In loaded
 * whole-suite runs Firefox now and then started but never answered `session.new` (in two of two
 * runs, once each), and puppeteer waited out its default of 180 s; within this bound such a start
 * is given up and tried again. A real command under that load took seconds, not tens of them.
 */
const PROTOCOL_TIMEOUT_MS = 30_000;
/** A start that hung is tried once more; a second failure is reported. */
const LAUNCH_TRIES = 2;
/** How long back waits for the earlier page before saying there was none. */
const BACK_WAIT_MS = 10_000;

/** Whether a launch failed by Firefox not answering in time (its start hung), not by a fault that a retry repeats. */
function isLaunchTimeout(error: Error): boolean {
  return error.name === 'ProtocolError' || error.name === 'TimeoutError';
}

/**
 * A headless Firefox driven by puppeteer-core over WebDriver BiDi: input, dialogs, tabs and
 * popups, console and network events, uploads, the clipboard and screenshots.
 */
export class FirefoxMachine extends TabbedMachine<Page, ElementHandle> {
  readonly controller: string;
  readonly notes = [
    'snapshots are an in-page outline of roles and names (WebDriver BiDi has no accessibility tree)',
  ];
  readonly displaySize = { width: 1280, height: 720 };

  private constructor(
    private readonly browser: Browser,
    first: Page,
    private readonly pid: number,
    proxy: EgressProxy,
    executable: string,
  ) {
    super('firefox', proxy);
    this.controller = `puppeteer-core over WebDriver BiDi to ${executable}`;
    this.register(first);
    browser.on('targetcreated', (target) => {
      void target.page().then((page) => page && this.register(page));
    });
  }

  static async launch(options: {
    executable: string;
    folder: string;
    proxy: EgressProxy;
    /**
     * How long a WebDriver BiDi command of the first start may take before that start is taken
     * for hung (default PROTOCOL_TIMEOUT_MS); the start after a hung one gets PROTOCOL_TIMEOUT_MS.
     */
    firstStartTimeoutMs?: number;
  }): Promise<FirefoxMachine> {
    const { folder, executable, proxy, firstStartTimeoutMs = PROTOCOL_TIMEOUT_MS } = options;
    const proxyPort = Number(new URL(proxy.url).port);
    // An optional peer, loaded with the first Firefox rig (the probe says when it is missing).
    const { default: puppeteer } = await import('puppeteer-core');
    const start = (profile: string, protocolTimeout: number) =>
      launchUnderLauncher(folder, 'firefox', executable, (launcher) =>
        puppeteer.launch({
          browser: 'firefox',
          protocol: 'webDriverBiDi',
          executablePath: launcher,
          headless: true,
          userDataDir: path.join(folder, profile),
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
            // No back-forward cache: a page restored from it fires no load event over BiDi, and
            // puppeteer then waited out its timeouts on back and on the next navigation.
            'browser.sessionhistory.max_total_viewers': 0,
            // The async clipboard without a person's gesture or the paste menu (headless keeps its own clipboard).
            'dom.events.testing.asyncClipboard': true,
          },
          defaultViewport: { width: 1280, height: 720 },
          handleSIGINT: false,
          handleSIGTERM: false,
          handleSIGHUP: false,
          timeout: 60_000,
          protocolTimeout,
        }),
      );
    let started: Awaited<ReturnType<typeof start>> | undefined;
    for (let tries = 1; !started; tries++) {
      try {
        started = await (tries === 1
          ? start('profile', firstStartTimeoutMs)
          : start(`profile-${tries}`, PROTOCOL_TIMEOUT_MS));
      } catch (error) {
        if (tries >= LAUNCH_TRIES || !isLaunchTimeout(error as Error)) throw error;
        // puppeteer does not wait for the hung Firefox to end: it is ended here, every process of
        // it, and the next start gets a profile of its own (the hung one may still hold the lock).
        await endRigProcesses(folder, [], 500);
      }
    }
    const { launched: browser, pid } = started;
    try {
      await answerProxyAuth(browser as unknown as BidiBrowser, proxy.credentials);
    } catch (error) {
      await browser.close().catch(() => undefined);
      throw error;
    }
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

  /** Tracks a page as a tab, with its events and the proxy credentials for its requests. */
  protected register(page: Page): void {
    if (!this.track(page)) return;
    // What page.authenticate sets, but at once: it would first wait for a tab-wide interception.
    Object.assign(page, { _credentials: this.proxy.credentials });
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) this.onMainFrameNavigated(page);
    });
    page.on('console', (message) => this.onConsole(page, message.type(), message.text()));
    page.on('pageerror', (error) => this.onConsole(page, 'page error', (error as Error).message));
    page.on('requestfinished', (request) =>
      this.onRequest(page, request.method(), request.url(), `→ ${request.response()?.status() ?? '?'}`),
    );
    page.on('requestfailed', (request) =>
      this.onRequest(page, request.method(), request.url(), `✗ ${request.failure()?.errorText ?? 'failed'}`),
    );
    page.on('dialog', (dialog) => this.onDialog(dialog));
    page.on('close', () => this.onClosed(page));
  }

  protected openPages(): Promise<Page[]> {
    return this.browser.pages();
  }

  protected newPage(): Promise<Page> {
    return this.browser.newPage();
  }

  protected evaluateIn(page: Page, expression: string): Promise<unknown> {
    return page.evaluate(expression);
  }

  protected async allowClipboard(): Promise<void> {
    // The profile's dom.events.testing.asyncClipboard already lets the page read and write it.
  }

  protected async elementIn(page: Page, expression: string): Promise<ElementHandle | null> {
    const handle = await page.evaluateHandle(expression);
    const element = handle.asElement() as ElementHandle | null;
    if (!element) await handle.dispose();
    return element;
  }

  /** Where puppeteer would click the element (it fails saying so when the element is not rendered). */
  protected pointOf(element: ElementHandle): Promise<{ x: number; y: number }> {
    return element.clickablePoint();
  }

  async navigate(url: string): Promise<BrowserAnswer> {
    this.refuseWhileDialog();
    let status: number | undefined;
    try {
      const response = await (await this.page()).goto(url, {
        waitUntil: 'domcontentloaded',
        timeout: 30_000,
      });
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
    const page = await this.page();
    const before = page.url();
    const navigations = this.navigationsOf(page);
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
    if (moved) this.countNavigation(page, navigations);
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
    const { keyboard } = await this.page();
    const press = async () => {
      for (const part of parts.slice(0, -1)) await keyboard.down(part);
      await keyboard.press(parts.at(-1) as KeyInput);
      for (const part of parts.slice(0, -1).reverse()) await keyboard.up(part);
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

  upload(ref: string, files: string[]): Promise<BrowserAnswer> {
    return this.onElement(
      ref,
      async (element) => {
        const isFileInput = await element.evaluate(
          (node) => node.tagName === 'INPUT' && node.getAttribute('type') === 'file',
        );
        if (!isFileInput) {
          throw unsupported(
            'firefox',
            'upload through an element that opens a file chooser',
            `${ref} is not an <input type=file>, and puppeteer over BiDi sees no file chooser`,
            ['chromium'],
          );
        }
        await (element as unknown as { uploadFile(...paths: string[]): Promise<void> }).uploadFile(...files);
      },
      `uploaded ${files.length} file(s) through ${ref}`,
    );
  }

  async screenshot(): Promise<BrowserAnswer> {
    this.refuseWhileDialog();
    const image = await jpegScreenshot(async (quality) =>
      Buffer.from(await (await this.page()).screenshot({ type: 'jpeg', quality })),
    );
    return {
      ...(await this.answer([
        `screenshot ${this.displaySize.width}×${this.displaySize.height}, ${Math.round(image.length / 1024)} KB JPEG`,
      ])),
      image,
    };
  }
}
