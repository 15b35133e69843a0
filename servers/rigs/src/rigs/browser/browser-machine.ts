import { ToolError } from '@toolmesh/core';
import type { BrowserContext, ElementHandle, Page } from 'playwright-core';
import type { EgressProxy } from '../egress/egress-proxy.js';
import type { BrowserAnswer } from './browser-driver.js';
import { jpegScreenshot } from './jpeg-screenshot.js';
import { firstLine } from './outline-machine.js';
import { POPUPS_ASKED } from './popup-watch.js';
import { TabbedMachine } from './tabbed-machine.js';

/** How long an action may wait for its element before saying so (a stale ref fails before this). */
const ACTION_TIMEOUT_MS = 5000;

/** One headless Chromium driven by playwright-core over a pipe: every browser_use action. */
export class BrowserMachine extends TabbedMachine<Page, ElementHandle> {
  readonly controller: string;
  readonly notes: string[];
  readonly displaySize: { width: number; height: number };
  private readonly pid: number;
  protected override popupGraceMs = 100;

  constructor(
    private readonly context: BrowserContext,
    options: {
      pid: number;
      viewport: { width: number; height: number };
      notes: string[];
      executable: string;
      proxy: EgressProxy;
    },
  ) {
    super('chromium', options.proxy);
    this.pid = options.pid;
    this.displaySize = options.viewport;
    this.notes = [
      'snapshots are an in-page outline of roles and names, walked only as far as the budget',
      ...options.notes,
    ];
    this.controller = `playwright-core over a pipe to ${options.executable}`;
    context.on('page', (page) => this.register(page));
    for (const page of context.pages()) this.register(page);
  }

  processGroups(): number[] {
    return [this.pid];
  }

  async close(): Promise<void> {
    try {
      await this.context.close();
    } finally {
      await this.proxy.close();
    }
  }

  protected register(page: Page): void {
    if (!this.track(page)) return;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) this.onMainFrameNavigated(page);
    });
    page.on('console', (message) => this.onConsole(page, message.type(), message.text()));
    page.on('pageerror', (error) => this.onConsole(page, 'page error', error.message));
    page.on('requestfinished', (request) => {
      void request
        .response()
        .then((response) =>
          this.onRequest(page, request.method(), request.url(), `→ ${response?.status() ?? '?'}`),
        );
    });
    page.on('requestfailed', (request) =>
      this.onRequest(page, request.method(), request.url(), `✗ ${request.failure()?.errorText ?? 'failed'}`),
    );
    page.on('dialog', (dialog) => this.onDialog(dialog));
    page.on('close', () => this.onClosed(page));
  }

  protected override async popupsAsked(page: Page): Promise<number> {
    // A page mid-navigation has no context to ask: it asked for none that this action could see.
    return Number(await page.evaluate(POPUPS_ASKED).catch(() => 0)) || 0;
  }

  protected async openPages(): Promise<Page[]> {
    return this.context.pages();
  }

  protected newPage(): Promise<Page> {
    return this.context.newPage();
  }

  protected evaluateIn(page: Page, expression: string): Promise<unknown> {
    return page.evaluate(expression);
  }

  protected async allowClipboard(): Promise<void> {
    await this.context.grantPermissions(['clipboard-read', 'clipboard-write']).catch(() => undefined);
  }

  protected async elementIn(page: Page, expression: string): Promise<ElementHandle | null> {
    const handle = await page.evaluateHandle(expression);
    const element = handle.asElement() as ElementHandle | null;
    if (!element) await handle.dispose();
    return element;
  }

  /** The middle of the element's box, scrolled into view first. */
  protected async pointOf(element: ElementHandle, ref: string): Promise<{ x: number; y: number }> {
    await element.scrollIntoViewIfNeeded({ timeout: ACTION_TIMEOUT_MS });
    const box = await element.boundingBox();
    if (!box) throw new ToolError(`${ref} is not rendered (it has no box): scroll to it or pick another.`);
    return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  }

  async navigate(url: string): Promise<BrowserAnswer> {
    this.refuseWhileDialog();
    const page = await this.page();
    let status: number | undefined;
    try {
      const response = await this.goto(page, url);
      status = response?.status();
      const refusal = response ? await response.headerValue('x-toolmesh-refused') : null;
      if (refusal) throw new ToolError(decodeURI(refusal));
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw new ToolError(`navigate to ${url} failed: ${firstLine(error)}`);
    }
    return this.answer([`navigated${status !== undefined ? ` (HTTP ${status})` : ''}`]);
  }

  /**
   * Chromium shows its error page for a failed load a moment after the failure is reported, and
   * that navigation would interrupt the next one: so a failed load waits for its error page.
   */
  private async goto(page: Page, url: string) {
    try {
      return await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 30_000 });
    } catch (error) {
      if (/net::ERR_/.test(firstLine(error))) {
        await page
          .waitForURL(/^chrome-error:/, { timeout: 2000, waitUntil: 'commit' })
          .catch(() => undefined);
      }
      throw error;
    }
  }

  async back(): Promise<BrowserAnswer> {
    this.refuseWhileDialog();
    const page = await this.page();
    const response = await page.goBack({ waitUntil: 'domcontentloaded', timeout: 30_000 });
    return this.answer([response ? 'went back' : 'there was no earlier page']);
  }

  click(ref: string, button: 'left' | 'right' | 'middle' = 'left', double = false): Promise<BrowserAnswer> {
    return this.onElement(
      ref,
      (element) =>
        double
          ? element.dblclick({ button, timeout: ACTION_TIMEOUT_MS })
          : element.click({ button, timeout: ACTION_TIMEOUT_MS }),
      `clicked ${ref}`,
    );
  }

  fill(ref: string, text: string): Promise<BrowserAnswer> {
    return this.onElement(
      ref,
      (element) => element.fill(text, { timeout: ACTION_TIMEOUT_MS }),
      `filled ${ref}`,
    );
  }

  async select(ref: string, values: string[]): Promise<BrowserAnswer> {
    const found = await this.optionsOf(ref, values);
    return this.onElement(
      ref,
      (element) => element.selectOption(found, { timeout: ACTION_TIMEOUT_MS }),
      `selected in ${ref}`,
    );
  }

  hover(ref: string): Promise<BrowserAnswer> {
    return this.onElement(ref, (element) => element.hover({ timeout: ACTION_TIMEOUT_MS }), `hovered ${ref}`);
  }

  async press(key: string, ref?: string): Promise<BrowserAnswer> {
    if (ref !== undefined) {
      return this.onElement(
        ref,
        (element) => element.press(key, { timeout: ACTION_TIMEOUT_MS }),
        `pressed ${key}`,
      );
    }
    const { keyboard } = await this.page();
    return this.act(() => keyboard.press(key), `pressed ${key}`);
  }

  /** Sets files on a file input, or on the chooser a click on the element opens. */
  upload(ref: string, files: string[]): Promise<BrowserAnswer> {
    return this.onElement(
      ref,
      async (element) => {
        const isFileInput = await element.evaluate(
          (node) => node.tagName === 'INPUT' && node.getAttribute('type') === 'file',
        );
        if (isFileInput) return element.setInputFiles(files, { timeout: ACTION_TIMEOUT_MS });
        const page = await this.page();
        const [chooser] = await Promise.all([
          page.waitForEvent('filechooser', { timeout: ACTION_TIMEOUT_MS }),
          element.click({ timeout: ACTION_TIMEOUT_MS }),
        ]);
        return chooser.setFiles(files);
      },
      `uploaded ${files.length} file(s) through ${ref}`,
    );
  }

  async screenshot(): Promise<BrowserAnswer> {
    this.refuseWhileDialog();
    const page = await this.page();
    const image = await jpegScreenshot((quality) =>
      page.screenshot({ type: 'jpeg', quality, timeout: 10_000 }),
    );
    return {
      ...(await this.answer([
        `screenshot ${this.displaySize.width}×${this.displaySize.height}, ${Math.round(image.length / 1024)} KB JPEG`,
      ])),
      image,
    };
  }
}
