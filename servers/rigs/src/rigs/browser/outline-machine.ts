import { randomBytes } from 'node:crypto';
import { decodeCursor, requestKey, ToolError, takeWithinBudget } from '@toolmesh/core';
import type { EgressProxy } from '../egress/egress-proxy.js';
import type {
  BrowserAnswer,
  BrowserDriver,
  BrowserEngine,
  Paging,
  SnapshotRequest,
  TabsOp,
} from './browser-driver.js';
import { PAGE_OUTLINE, PAGE_REF } from './page-outline.js';
import { SnapshotBook, staleRef, type WalkedLines } from './snapshot-book.js';

const KEEP_EVENTS = 200;

/** In the page: the rendered text of the body, or of a scope (a ref of the outline or a CSS selector; null for none, as JSON carries it). */
const PAGE_TEXT = `((key, scope) => {
  const root = scope == null ? document.body
    : /^e\\d+$/.test(scope) ? globalThis[key]?.byRef.get(scope) : document.querySelector(scope);
  return root && root.isConnected ? root.innerText : null;
})`;

/** In the page: the values of a select's options that match values or labels, or the ones that match nothing. */
const PAGE_OPTIONS = `((select, wanted) => {
  const options = [...select.options];
  const found = wanted.map((want) => options.find((o) => o.value === want) ?? options.find((o) => o.label === want));
  const missing = wanted.filter((_, i) => !found[i]);
  return missing.length > 0 ? { missing } : { values: found.map((o) => o.value) };
})`;

/**
 * What every browser rig shares: snapshots are an outline built in the page with refs of its own
 * (BiDi and classic WebDriver give no accessibility tree, and Chromium's, built whole, took
 * seconds on a huge page where the outline stops at the budget); the snapshot book, the text
 * extractor, the answers' heading and the event lists live here, and each engine supplies how to
 * run a script in the page and how to touch an element.
 */
export abstract class OutlineMachine<Tab> implements BrowserDriver {
  abstract readonly controller: string;
  abstract readonly notes: readonly string[];
  abstract readonly displaySize: { width: number; height: number };
  protected readonly snapshots = new SnapshotBook<Tab>();
  /** Where the page keeps the outline's refs: a name the page cannot guess in advance. */
  protected readonly refKey = `__toolmesh_${randomBytes(6).toString('hex')}`;
  protected consoleLines: string[] = [];
  protected networkLines: string[] = [];

  protected constructor(
    readonly engine: BrowserEngine,
    protected readonly proxy: EgressProxy,
  ) {}

  abstract processGroups(): number[];
  abstract close(): Promise<void>;
  abstract navigate(url: string): Promise<BrowserAnswer>;
  abstract back(): Promise<BrowserAnswer>;
  abstract click(ref: string, button?: 'left' | 'right' | 'middle', double?: boolean): Promise<BrowserAnswer>;
  abstract fill(ref: string, text: string): Promise<BrowserAnswer>;
  abstract select(ref: string, values: string[]): Promise<BrowserAnswer>;
  abstract hover(ref: string): Promise<BrowserAnswer>;
  abstract press(key: string, ref?: string): Promise<BrowserAnswer>;
  abstract drag(ref: string, targetRef: string): Promise<BrowserAnswer>;
  abstract upload(ref: string, files: string[]): Promise<BrowserAnswer>;
  abstract answerDialog(accept: boolean, promptText?: string): Promise<BrowserAnswer>;
  abstract tabsAction(op: TabsOp, tab?: string): Promise<BrowserAnswer>;
  abstract screenshot(): Promise<BrowserAnswer>;

  /** The current tab, the id the answers give it, and how many times its main frame navigated. */
  protected abstract currentTab(): Promise<{ tab: Tab; id: string; navigations: number }>;
  /** Runs `fn` (a function's source) in the current tab with JSON arguments, and returns its JSON result. */
  protected abstract evaluate<T>(fn: string, ...args: unknown[]): Promise<T>;

  egressRefusals(): string[] {
    return this.proxy.takeRefusals();
  }

  /** The heading of every answer (url and title), then the body. */
  protected async answer(
    notes: string[],
    body?: string,
    paging?: BrowserAnswer['page'],
  ): Promise<BrowserAnswer> {
    const { id } = await this.currentTab();
    const [url, title] = await this.evaluate<[string, string]>('() => [location.href, document.title]').catch(
      () => ['?', ''] as [string, string],
    );
    const heading = `url: ${url}\ntitle: ${title}`;
    return {
      tab: id,
      body: body === undefined || body === '' ? heading : `${heading}\n\n${body}`,
      notes,
      ...(paging && { page: paging }),
    };
  }

  /** Checks a ref against the last snapshot of the current tab, then fails at once if its element left. */
  protected async checkRef(ref: string): Promise<void> {
    const { tab, navigations } = await this.currentTab();
    this.snapshots.check(tab, navigations, ref);
    const there = await this.evaluate<boolean>(
      `(key, ref) => ${PAGE_REF}(key, ref) !== null`,
      this.refKey,
      ref,
    );
    if (!there) throw staleRef(ref, 'its element left the page');
  }

  async takeSnapshot(request: SnapshotRequest & Paging): Promise<BrowserAnswer> {
    const { tab, navigations } = await this.currentTab();
    const { lines, paging, notes } = await this.snapshots.page(tab, navigations, request, async (window) => {
      const walked = await this.evaluate<WalkedLines | null>(PAGE_OUTLINE, {
        key: this.refKey,
        scope: request.scope,
        depth: request.depth,
        find: request.find,
        ...window,
      });
      if (walked === null) throw noScope(request.scope);
      return walked;
    });
    return this.answer(notes, lines.join('\n'), paging);
  }

  async extractText(scope: string | undefined, paging: Paging): Promise<BrowserAnswer> {
    const text = await this.evaluate<string | null>(PAGE_TEXT, this.refKey, scope ?? null);
    if (text === null) throw noScope(scope);
    const [url] = await this.evaluate<[string]>('() => [location.href]');
    const key = requestKey({ scope, url });
    const { items, ...cut } = takeWithinBudget(text.split('\n'), paging.maxTokens, {
      offset: decodeCursor(paging.cursor, key),
      key,
      size: (line) => Buffer.byteLength(line, 'utf8') + 1,
    });
    return this.answer(
      cut.truncated ? ['text cut at maxTokens: continue with nextCursor'] : [],
      items.join('\n'),
      cut,
    );
  }

  async drain(kind: 'console' | 'network'): Promise<BrowserAnswer> {
    const lines = kind === 'console' ? this.consoleLines : this.networkLines;
    if (kind === 'console') this.consoleLines = [];
    else this.networkLines = [];
    const { id } = await this.currentTab();
    return {
      tab: id,
      body: lines.join('\n'),
      notes: [`${lines.length} ${kind} entr${lines.length === 1 ? 'y' : 'ies'} since the last call`],
    };
  }

  abstract clipboard(text?: string): Promise<BrowserAnswer>;

  protected keep(list: string[], line: string): void {
    list.push(line);
    if (list.length > KEEP_EVENTS) list.splice(0, list.length - KEEP_EVENTS);
  }

  /** The option values of a ref's select that match `wanted` values or labels; names what matches nothing. */
  protected async optionsOf(ref: string, wanted: string[]): Promise<string[]> {
    const found = await this.evaluate<{ values?: string[]; missing?: string[] } | null>(
      `(key, ref, wanted) => { const select = ${PAGE_REF}(key, ref); return select && select.options ? (${PAGE_OPTIONS})(select, wanted) : null; }`,
      this.refKey,
      ref,
      wanted,
    );
    if (found === null)
      throw new ToolError(`${ref} is not a select: select takes a combobox's or listbox's ref.`);
    if (found.missing) {
      throw new ToolError(
        `${ref} has no option with value or label ${found.missing.map((m) => JSON.stringify(m)).join(', ')}: take a snapshot with scope ${ref} to see its options.`,
      );
    }
    return found.values ?? [];
  }
}

function noScope(scope: string | undefined): ToolError {
  return new ToolError(
    `scope ${JSON.stringify(scope)} matches nothing on the page: give a ref from a snapshot or a CSS selector that matches.`,
  );
}

/** The first line of an error's message, for answers that quote a driver's failure. */
export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
