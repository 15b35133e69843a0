import { decodeCursor, requestKey, ToolError, takeWithinBudget } from '@toolmesh/core';
import type { BrowserContext, Dialog, Locator, Page } from 'playwright-core';
import type { EgressProxy } from '../egress/egress-proxy.js';
import type { BrowserAnswer, BrowserDriver, Paging, SnapshotRequest, TabsOp } from './browser-driver.js';
import { jpegScreenshot } from './jpeg-screenshot.js';
import { SnapshotBook, staleRef } from './snapshot-book.js';

/** The page's own globals that evaluate uses; this package is built without the DOM types. */
interface PageGlobals {
  navigator: { clipboard: { readText(): Promise<string>; writeText(text: string): Promise<void> } };
}

const KEEP_EVENTS = 200;
/** How long an action may wait for its element before saying so (a stale ref fails before this). */
const ACTION_TIMEOUT_MS = 5000;
/** A snapshot of a huge page takes seconds on a busy machine; it is not waiting for anything to appear. */
const SNAPSHOT_TIMEOUT_MS = 30_000;

/** One headless Chromium with its tabs, events and the refs of its last snapshot. */
export class BrowserMachine implements BrowserDriver {
  readonly controller: string;
  readonly notes: string[];
  readonly displaySize: { width: number; height: number };
  private readonly pid: number;
  private readonly proxy: EgressProxy;
  private readonly tabs = new Map<Page, string>();
  private readonly navigations = new WeakMap<Page, number>();
  private tabCount = 0;
  private current: Page | undefined;
  private readonly snapshots = new SnapshotBook<Page>();
  private dialog: Dialog | undefined;
  private dialogWaiter: (() => void) | undefined;
  private consoleLines: string[] = [];
  private networkLines: string[] = [];
  private adopted: Page[] = [];

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
    this.proxy = options.proxy;
    this.pid = options.pid;
    this.displaySize = options.viewport;
    this.notes = options.notes;
    this.controller = `playwright-core over a pipe to ${options.executable}`;
    context.on('page', (page) => this.register(page, true));
    for (const page of context.pages()) this.register(page, false);
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

  /** What the egress proxy refused since the last call. */
  egressRefusals(): string[] {
    return this.proxy.takeRefusals();
  }

  private register(page: Page, popup: boolean): void {
    if (this.tabs.has(page)) return;
    this.tabs.set(page, `t${++this.tabCount}`);
    this.navigations.set(page, 0);
    if (popup && page.opener !== undefined) this.adopted.push(page);
    this.current ??= page;
    const tab = () => this.tabs.get(page) ?? '?';
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) this.navigations.set(page, (this.navigations.get(page) ?? 0) + 1);
    });
    page.on('console', (message) =>
      this.keep(this.consoleLines, `[${tab()}] ${message.type()}: ${message.text()}`),
    );
    page.on('pageerror', (error) => this.keep(this.consoleLines, `[${tab()}] page error: ${error.message}`));
    page.on('requestfinished', (request) => {
      void request
        .response()
        .then((response) =>
          this.keep(
            this.networkLines,
            `[${tab()}] ${request.method()} ${request.url()} → ${response?.status() ?? '?'}`,
          ),
        );
    });
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
      if (this.current === page) this.current = [...this.tabs.keys()].at(-1);
    });
  }

  private keep(list: string[], line: string): void {
    list.push(line);
    if (list.length > KEEP_EVENTS) list.splice(0, list.length - KEEP_EVENTS);
  }

  private async page(): Promise<Page> {
    if (!this.current || this.current.isClosed()) this.current = await this.context.newPage();
    return this.current;
  }

  private tabOf(page: Page): string {
    return this.tabs.get(page) ?? '?';
  }

  private async answer(page: Page, extra: { body?: string; notes?: string[] } = {}): Promise<BrowserAnswer> {
    const title = await page.title().catch(() => '');
    const heading = `url: ${page.url()}\ntitle: ${title}`;
    return {
      tab: this.tabOf(page),
      body: extra.body !== undefined ? `${heading}\n\n${extra.body}` : heading,
      notes: extra.notes ?? [],
    };
  }

  private refuseWhileDialog(): void {
    if (this.dialog) {
      throw new ToolError(
        `a ${this.dialog.type()} dialog is open on the page: answer it first with action dialog (accept true or false).`,
      );
    }
  }

  /**
   * Runs a page action, stopping early when it opens a dialog (the page is blocked until the
   * dialog is answered) and adopting any popup it opened as the current tab.
   */
  private async act(page: Page, run: () => Promise<unknown>, done: string): Promise<BrowserAnswer> {
    this.refuseWhileDialog();
    this.adopted = [];
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
    const notes = [done];
    const events: string[] = [];
    if (outcome === 'dialog' && this.dialog) {
      action.catch(() => undefined);
      notes.push(
        `a ${this.dialog.type()} dialog opened: answer it with action dialog (accept true or false).`,
      );
      events.push(`dialog (${this.dialog.type()}): ${this.dialog.message()}`);
      return { ...(await this.answer(page, { body: events.join('\n'), notes })) };
    }
    // A popup's page event can trail the click that opened it.
    await page.waitForTimeout(100).catch(() => undefined);
    const popup = this.adopted.find((candidate) => !candidate.isClosed());
    if (popup) {
      this.current = popup;
      await popup.waitForLoadState('domcontentloaded', { timeout: ACTION_TIMEOUT_MS }).catch(() => undefined);
      notes.push(
        `the action opened a popup; rigs adopted it as tab ${this.tabOf(popup)}, now the current tab.`,
      );
      return this.answer(popup, { notes });
    }
    return this.answer(page.isClosed() ? await this.page() : page, { notes });
  }

  /** The element a ref of the last snapshot names; a ref that no longer holds fails at once. */
  private async locate(page: Page, ref: string): Promise<Locator> {
    this.snapshots.check(page, this.navigations.get(page) ?? 0, ref);
    const locator = page.locator(`aria-ref=${ref}`);
    if ((await locator.count().catch(() => 0)) === 0) throw staleRef(ref, 'its element left the page');
    return locator;
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
    return this.answer(page, { notes: [`navigated${status !== undefined ? ` (HTTP ${status})` : ''}`] });
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
    return this.answer(page, { notes: [response ? 'went back' : 'there was no earlier page'] });
  }

  async takeSnapshot(request: SnapshotRequest & Paging): Promise<BrowserAnswer> {
    this.refuseWhileDialog();
    const page = await this.page();
    const { lines, paging, notes } = await this.snapshots.page(
      page,
      this.navigations.get(page) ?? 0,
      request,
      async () => {
        const target = request.scope === undefined ? page : await this.scopeLocator(page, request.scope);
        return target.ariaSnapshot({
          mode: 'ai',
          ...(request.depth !== undefined && { depth: request.depth }),
          timeout: SNAPSHOT_TIMEOUT_MS,
        });
      },
    );
    return { ...(await this.answer(page, { body: lines.join('\n'), notes })), page: paging };
  }

  private async scopeLocator(page: Page, scope: string): Promise<Locator> {
    if (/^(f\d+)?e\d+$/.test(scope)) return this.locate(page, scope);
    const locator = page.locator(scope).first();
    if ((await locator.count().catch(() => 0)) === 0) {
      throw new ToolError(
        `scope ${JSON.stringify(scope)} matches nothing on the page: give a ref from a snapshot or a CSS selector that matches.`,
      );
    }
    return locator;
  }

  async click(
    ref: string,
    button: 'left' | 'right' | 'middle' = 'left',
    double = false,
  ): Promise<BrowserAnswer> {
    const page = await this.page();
    const target = await this.locate(page, ref);
    return this.act(
      page,
      () =>
        double
          ? target.dblclick({ button, timeout: ACTION_TIMEOUT_MS })
          : target.click({ button, timeout: ACTION_TIMEOUT_MS }),
      `clicked ${ref}`,
    );
  }

  async fill(ref: string, text: string): Promise<BrowserAnswer> {
    const page = await this.page();
    const target = await this.locate(page, ref);
    return this.act(page, () => target.fill(text, { timeout: ACTION_TIMEOUT_MS }), `filled ${ref}`);
  }

  async select(ref: string, values: string[]): Promise<BrowserAnswer> {
    const page = await this.page();
    const target = await this.locate(page, ref);
    return this.act(
      page,
      () => target.selectOption(values, { timeout: ACTION_TIMEOUT_MS }),
      `selected in ${ref}`,
    );
  }

  async hover(ref: string): Promise<BrowserAnswer> {
    const page = await this.page();
    const target = await this.locate(page, ref);
    return this.act(page, () => target.hover({ timeout: ACTION_TIMEOUT_MS }), `hovered ${ref}`);
  }

  async press(key: string, ref?: string): Promise<BrowserAnswer> {
    const page = await this.page();
    const target = ref === undefined ? undefined : await this.locate(page, ref);
    return this.act(
      page,
      () => (target ? target.press(key, { timeout: ACTION_TIMEOUT_MS }) : page.keyboard.press(key)),
      `pressed ${key}`,
    );
  }

  async drag(ref: string, targetRef: string): Promise<BrowserAnswer> {
    const page = await this.page();
    const source = await this.locate(page, ref);
    const target = await this.locate(page, targetRef);
    return this.act(
      page,
      () => source.dragTo(target, { timeout: ACTION_TIMEOUT_MS }),
      `dragged ${ref} to ${targetRef}`,
    );
  }

  /** Sets files on a file input, or on the chooser a click on the element opens. */
  async upload(ref: string, files: string[]): Promise<BrowserAnswer> {
    const page = await this.page();
    const target = await this.locate(page, ref);
    const isFileInput = await target.evaluate(
      (element) => element.tagName === 'INPUT' && element.getAttribute('type') === 'file',
    );
    return this.act(
      page,
      async () => {
        if (isFileInput) return target.setInputFiles(files, { timeout: ACTION_TIMEOUT_MS });
        const [chooser] = await Promise.all([
          page.waitForEvent('filechooser', { timeout: ACTION_TIMEOUT_MS }),
          target.click({ timeout: ACTION_TIMEOUT_MS }),
        ]);
        return chooser.setFiles(files);
      },
      `uploaded ${files.length} file(s) through ${ref}`,
    );
  }

  async answerDialog(accept: boolean, promptText?: string): Promise<BrowserAnswer> {
    const dialog = this.dialog;
    if (!dialog) throw new ToolError('no dialog is open: dialog answers one that an action opened.');
    this.dialog = undefined;
    const page = await this.page();
    await (accept ? dialog.accept(promptText) : dialog.dismiss());
    await page.waitForLoadState('domcontentloaded', { timeout: ACTION_TIMEOUT_MS }).catch(() => undefined);
    return this.answer(page, { notes: [`${accept ? 'accepted' : 'dismissed'} the ${dialog.type()} dialog`] });
  }

  async tabsAction(op: TabsOp, tab?: string): Promise<BrowserAnswer> {
    if (op !== 'list') {
      const page = [...this.tabs].find(([, id]) => id === tab)?.[0];
      if (!page) {
        throw new ToolError(
          `no tab ${JSON.stringify(tab)}: the tabs are ${[...this.tabs.values()].join(', ') || 'none'}.`,
        );
      }
      if (op === 'select') {
        this.current = page;
        await page.bringToFront();
      } else {
        await page.close();
      }
    }
    const current = await this.page();
    const lines = await Promise.all(
      [...this.tabs].map(
        async ([page, id]) =>
          `${page === current ? '*' : ' '} ${id} ${page.url()} ${await page.title().catch(() => '')}`,
      ),
    );
    return {
      tab: this.tabOf(current),
      body: lines.join('\n'),
      notes: [op === 'list' ? 'tabs (* current)' : `${op === 'select' ? 'selected' : 'closed'} ${tab}`],
    };
  }

  async drain(kind: 'console' | 'network'): Promise<BrowserAnswer> {
    const page = await this.page();
    const lines = kind === 'console' ? this.consoleLines : this.networkLines;
    const body = lines.join('\n');
    if (kind === 'console') this.consoleLines = [];
    else this.networkLines = [];
    return {
      tab: this.tabOf(page),
      body,
      notes: [`${lines.length} ${kind} entr${lines.length === 1 ? 'y' : 'ies'} since the last call`],
    };
  }

  async extractText(scope: string | undefined, paging: Paging): Promise<BrowserAnswer> {
    this.refuseWhileDialog();
    const page = await this.page();
    const target = scope === undefined ? page.locator('body') : await this.scopeLocator(page, scope);
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a reader of the page sees.
    const text = await target.innerText({ timeout: ACTION_TIMEOUT_MS });
    const key = requestKey({ scope, url: page.url() });
    const lines = text.split('\n');
    const { items, ...cut } = takeWithinBudget(lines, paging.maxTokens, {
      offset: decodeCursor(paging.cursor, key),
      key,
      size: (line) => Buffer.byteLength(line, 'utf8') + 1,
    });
    return {
      ...(await this.answer(page, {
        body: items.join('\n'),
        notes: cut.truncated ? ['text cut at maxTokens: continue with nextCursor'] : [],
      })),
      page: cut,
    };
  }

  async clipboard(text?: string): Promise<BrowserAnswer> {
    this.refuseWhileDialog();
    const page = await this.page();
    await this.context.grantPermissions(['clipboard-read', 'clipboard-write']).catch(() => undefined);
    if (text !== undefined) {
      await page.evaluate(
        (value) => (globalThis as unknown as PageGlobals).navigator.clipboard.writeText(value),
        text,
      );
      return {
        tab: this.tabOf(page),
        body: '',
        notes: [`wrote ${text.length} character(s) to the clipboard`],
      };
    }
    const read = await page.evaluate(() =>
      (globalThis as unknown as PageGlobals).navigator.clipboard.readText(),
    );
    return { tab: this.tabOf(page), body: read, notes: ['the clipboard'] };
  }

  async screenshot(): Promise<BrowserAnswer> {
    this.refuseWhileDialog();
    const page = await this.page();
    const image = await jpegScreenshot((quality) =>
      page.screenshot({ type: 'jpeg', quality, timeout: 10_000 }),
    );
    return {
      ...(await this.answer(page, {
        notes: [
          `screenshot ${this.displaySize.width}×${this.displaySize.height}, ${Math.round(image.length / 1024)} KB JPEG`,
        ],
      })),
      image,
    };
  }
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
