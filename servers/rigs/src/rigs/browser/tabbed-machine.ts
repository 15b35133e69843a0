import { ToolError } from '@toolmesh/core';
import type { EgressProxy } from '../egress/egress-proxy.js';
import type { BrowserAnswer, BrowserEngine, TabsOp } from './browser-driver.js';
import { firstLine, OutlineMachine } from './outline-machine.js';
import { PAGE_REF } from './page-outline.js';
import { staleRef } from './snapshot-book.js';

/** What Playwright's and puppeteer's pages both offer: all the tab bookkeeping needs. */
export interface TabPage {
  url(): string;
  title(): Promise<string>;
  isClosed(): boolean;
  close(): Promise<unknown>;
  bringToFront(): Promise<void>;
  readonly mouse: {
    move(x: number, y: number, options?: { steps?: number }): Promise<void>;
    down(): Promise<void>;
    up(): Promise<void>;
  };
}

/** What Playwright's and puppeteer's element handles both offer. */
export interface PageElement {
  dispose(): Promise<void>;
}

/** What Playwright's and puppeteer's dialogs both offer. */
export interface PageDialog {
  type(): string;
  message(): string;
  accept(promptText?: string): Promise<void>;
  dismiss(): Promise<void>;
}

/** In the page: reads the clipboard (text null) or writes text to it. */
const PAGE_CLIPBOARD = `((text) => text === null
  ? navigator.clipboard.readText()
  : navigator.clipboard.writeText(text).then(() => ''))`;

/** How long an adopted popup may take to leave about:blank and parse its page. */
const POPUP_LOAD_MS = 5000;
/** How long a popup the page asked for may take to show up as a page of its own. */
const ASKED_POPUP_MS = 10_000;

/**
 * What the Chromium (Playwright) and Firefox (puppeteer over BiDi) rigs share: both protocols send
 * page events, so tabs, popups, dialogs, console and network are tracked here the same way, and
 * each engine supplies how to list its pages, run a script in one and touch an element.
 */
export abstract class TabbedMachine<P extends TabPage, E extends PageElement> extends OutlineMachine<P> {
  private readonly tabs = new Map<P, string>();
  private readonly navigations = new WeakMap<P, number>();
  private tabCount = 0;
  private currentPage: P | undefined;
  private dialog: PageDialog | undefined;
  private dialogWaiter: (() => void) | undefined;
  /** How long a popup's page event may trail the action that opened it, when the page does not say it asked for one. */
  protected popupGraceMs = 0;

  /** How many popups `page` has asked for so far, where the machine can tell (popup-watch.ts); 0 elsewhere. */
  protected popupsAsked(_page: P): Promise<number> {
    return Promise.resolve(0);
  }

  protected constructor(engine: Exclude<BrowserEngine, 'webkit'>, proxy: EgressProxy) {
    super(engine, proxy);
  }

  /** Every open page of the browser, popups included. */
  protected abstract openPages(): Promise<P[]>;
  /** A new tab, for when the last one closed. */
  protected abstract newPage(): Promise<P>;
  /** Tracks a page as a tab (`track`) and wires its events to the `on*` methods; once per page. */
  protected abstract register(page: P): void;
  /** Runs a script expression in a page. */
  protected abstract evaluateIn(page: P, expression: string): Promise<unknown>;
  /** The element a script expression yields in a page; null (its handle released) when it yields none. */
  protected abstract elementIn(page: P, expression: string): Promise<E | null>;
  /** Where a drag grips an element or drops on it, in the viewport. */
  protected abstract pointOf(element: E, ref: string): Promise<{ x: number; y: number }>;

  /** Starts tracking a page as a tab; false when it already is one. */
  protected track(page: P): boolean {
    if (this.tabs.has(page)) return false;
    this.tabs.set(page, `t${++this.tabCount}`);
    this.navigations.set(page, 0);
    this.currentPage ??= page;
    return true;
  }

  protected tabId(page: P): string {
    return this.tabs.get(page) ?? '?';
  }

  protected onMainFrameNavigated(page: P): void {
    this.navigations.set(page, (this.navigations.get(page) ?? 0) + 1);
  }

  protected onConsole(page: P, type: string, text: string): void {
    this.keep(this.consoleLines, `[${this.tabId(page)}] ${type}: ${text}`);
  }

  protected onRequest(page: P, method: string, url: string, outcome: string): void {
    this.keep(this.networkLines, `[${this.tabId(page)}] ${method} ${url} ${outcome}`);
  }

  protected onDialog(dialog: PageDialog): void {
    this.dialog = dialog;
    this.dialogWaiter?.();
  }

  protected onClosed(page: P): void {
    this.tabs.delete(page);
    if (this.currentPage === page) this.currentPage = [...this.tabs.keys()].at(-1);
  }

  /** The current tab, a new one when the last was closed. */
  protected async page(): Promise<P> {
    if (!this.currentPage || this.currentPage.isClosed()) {
      const page = await this.newPage();
      this.register(page);
      this.currentPage = page;
    }
    return this.currentPage;
  }

  protected async currentTab() {
    const page = await this.page();
    return { tab: page, id: this.tabId(page), navigations: this.navigations.get(page) ?? 0 };
  }

  protected async evaluate<T>(fn: string, ...args: unknown[]): Promise<T> {
    this.refuseWhileDialog();
    return (await this.evaluateIn(await this.page(), `(${fn})(...${JSON.stringify(args)})`)) as T;
  }

  protected refuseWhileDialog(): void {
    if (this.dialog) {
      throw new ToolError(
        `a ${this.dialog.type()} dialog is open on the page: answer it first with action dialog (accept true or false).`,
      );
    }
  }

  /** Counts a navigation the engine's events may not have told (a page restored from the back-forward cache). */
  protected countNavigation(page: P, since: number): void {
    if ((this.navigations.get(page) ?? 0) === since) this.onMainFrameNavigated(page);
  }

  protected navigationsOf(page: P): number {
    return this.navigations.get(page) ?? 0;
  }

  /**
   * Runs an input action, stopping early when it opens a dialog (the page waits for an answer,
   * and so would the action) and adopting a tab it opened as the current one.
   */
  protected async act(run: () => Promise<unknown>, done: string): Promise<BrowserAnswer> {
    this.refuseWhileDialog();
    const before = new Set(await this.openPages());
    const acting = await this.page();
    const askedBefore = await this.popupsAsked(acting);
    const dialogOpened = new Promise<'dialog'>((resolve) => {
      this.dialogWaiter = () => resolve('dialog');
    });
    const action = run().then(() => 'done' as const);
    let outcome: 'done' | 'dialog';
    try {
      outcome = await Promise.race([action, dialogOpened]);
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw new ToolError(`${done} failed: ${firstLine(error)}`);
    } finally {
      this.dialogWaiter = undefined;
    }
    if (outcome === 'dialog' && this.dialog) {
      action.catch(() => undefined);
      return this.answerAsIs(
        [done, `a ${this.dialog.type()} dialog opened: answer it with action dialog (accept true or false).`],
        `dialog (${this.dialog.type()}): ${this.dialog.message()}`,
      );
    }
    const newPage = async () =>
      (await this.openPages()).find((page) => !before.has(page) && !page.isClosed());
    const asked = (await this.popupsAsked(acting)) > askedBefore;
    if (!asked && this.popupGraceMs > 0)
      await new Promise((resolve) => setTimeout(resolve, this.popupGraceMs));
    let opened = await newPage();
    for (const deadline = Date.now() + ASKED_POPUP_MS; asked && !opened && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      opened = await newPage();
    }
    if (opened) {
      this.register(opened);
      this.currentPage = opened;
      await this.loaded(opened);
      return this.answer([
        done,
        `the action opened a popup; rigs adopted it as tab ${this.tabId(opened)}, now the current tab.`,
      ]);
    }
    return this.answer([done]);
  }

  /** The element a ref of the last snapshot names; a ref that no longer holds fails at once. */
  protected async element(ref: string): Promise<E> {
    await this.checkRef(ref);
    const found = await this.elementIn(
      await this.page(),
      `${PAGE_REF}(${JSON.stringify(this.refKey)}, ${JSON.stringify(ref)})`,
    );
    if (!found) throw staleRef(ref, 'its element left the page');
    return found;
  }

  /** Runs `use` on a ref's element as an input action (see `act`), releasing the handle after. */
  protected async onElement(ref: string, use: (element: E) => Promise<unknown>, done: string) {
    const element = await this.element(ref);
    try {
      return await this.act(() => use(element), done);
    } finally {
      await element.dispose().catch(() => undefined);
    }
  }

  /** Mouse down on the source, a few moves, up on the target: pointer and HTML drag-and-drop alike. */
  async drag(ref: string, targetRef: string): Promise<BrowserAnswer> {
    const source = await this.element(ref);
    const target = await this.element(targetRef);
    const { mouse } = await this.page();
    try {
      return await this.act(async () => {
        const from = await this.pointOf(source, ref);
        const to = await this.pointOf(target, targetRef);
        await mouse.move(from.x, from.y);
        await mouse.down();
        await mouse.move(to.x, to.y, { steps: 5 });
        await mouse.up();
      }, `dragged ${ref} to ${targetRef}`);
    } finally {
      await Promise.all([source.dispose(), target.dispose()]).catch(() => undefined);
    }
  }

  /** The current tab's heading and a body, without touching the page (a dialog blocks its scripts). */
  private async answerAsIs(notes: string[], body: string): Promise<BrowserAnswer> {
    const page = await this.page();
    return { tab: this.tabId(page), body: `url: ${page.url()}\n\n${body}`, notes };
  }

  /** Waits for a popup to leave about:blank and parse its page, or for the wait to run out. */
  private async loaded(page: P): Promise<void> {
    const deadline = Date.now() + POPUP_LOAD_MS;
    while (Date.now() < deadline && !page.isClosed()) {
      const state = await this.evaluateIn(page, 'document.readyState').catch(() => 'loading');
      if (state !== 'loading' && page.url() !== 'about:blank') return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
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
        this.currentPage = page;
        await page.bringToFront();
      } else {
        if (this.tabs.size === 1)
          throw new ToolError(`${tab} is the only tab: rig_close closes the whole rig.`);
        await page.close();
        this.onClosed(page);
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
      tab: this.tabId(current),
      body: lines.join('\n'),
      notes: [op === 'list' ? 'tabs (* current)' : `${op === 'select' ? 'selected' : 'closed'} ${tab}`],
    };
  }

  /** Lets the page use the clipboard without a person's gesture; what each engine needs differs. */
  protected abstract allowClipboard(): Promise<void>;

  override async clipboard(text?: string): Promise<BrowserAnswer> {
    this.refuseWhileDialog();
    await this.allowClipboard();
    const read = await this.evaluate<string>(PAGE_CLIPBOARD, text ?? null);
    const { id } = await this.currentTab();
    return text === undefined
      ? { tab: id, body: read, notes: ['the clipboard'] }
      : { tab: id, body: '', notes: [`wrote ${text.length} character(s) to the clipboard`] };
  }
}
