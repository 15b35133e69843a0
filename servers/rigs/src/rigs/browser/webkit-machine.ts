import { ToolError } from '@toolmesh/core';
import { DesktopMachine } from '../desktop/desktop-machine.js';
import type { EgressProxy } from '../egress/egress-proxy.js';
import { freePort } from '../free-port.js';
import { type BrowserAnswer, type TabsOp, unsupported } from './browser-driver.js';
import { firstLine, OutlineMachine } from './outline-machine.js';
import { PAGE_REF } from './page-outline.js';
import { staleRef } from './snapshot-book.js';

/** The key under which W3C WebDriver returns an element reference. */
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

/** WebDriver's code points for the named keys `press` takes (the W3C spec's table). */
const KEYS: Record<string, string> = {
  Backspace: '\uE003',
  Tab: '\uE004',
  Enter: '\uE007',
  Shift: '\uE008',
  Control: '\uE009',
  Alt: '\uE00A',
  Escape: '\uE00C',
  Space: '\uE00D',
  PageUp: '\uE00E',
  PageDown: '\uE00F',
  End: '\uE010',
  Home: '\uE011',
  ArrowLeft: '\uE012',
  ArrowUp: '\uE013',
  ArrowRight: '\uE014',
  ArrowDown: '\uE015',
  Delete: '\uE017',
  Meta: '\uE03D',
};

/** A key or key combination (Control+A) as WebDriver key actions: modifiers down, the key, modifiers up. */
function keyActions(combo: string) {
  const values = combo.split('+').map((name) => {
    const value = KEYS[name] ?? (name.length === 1 ? name : undefined);
    if (value === undefined) {
      throw new ToolError(
        `\`key\` ${JSON.stringify(name)} is not a key engine webkit knows: give one character or one of ${Object.keys(KEYS).join(', ')}.`,
      );
    }
    return value;
  });
  return [
    ...values.map((value) => ({ type: 'keyDown', value })),
    ...values.reverse().map((value) => ({ type: 'keyUp', value })),
  ];
}

/**
 * In the page: from the first call on a document, keeps what it writes to the console and its
 * uncaught errors under the rigs key; returns (and clears) what was kept. Classic WebDriver runs
 * no script before a page's own, so what a page writes while it loads, before that call, is not seen.
 */
const PAGE_CONSOLE = `((key) => {
  const store = (globalThis[key + 'console'] ??= (() => {
    const kept = [];
    const text = (args) => args.map((arg) => {
      try { return typeof arg === 'string' ? arg : JSON.stringify(arg) ?? String(arg); } catch { return String(arg); }
    }).join(' ');
    for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
      const original = console[level].bind(console);
      console[level] = (...args) => { kept.push(level + ': ' + text(args)); if (kept.length > 200) kept.shift(); original(...args); };
    }
    addEventListener('error', (event) => kept.push('page error: ' + event.message));
    return kept;
  })());
  return store.splice(0, store.length);
})`;

/**
 * WebKitGTK's MiniBrowser on a private Xvfb, driven by WebKitWebDriver over classic WebDriver.
 * Snapshots are the in-page outline. Classic WebDriver carries no events, so the console is what
 * WebKit writes of it (MiniBrowser's setting to print console messages), the network is what the
 * rig's egress proxy saw, and the clipboard is the display's.
 */
export class WebKitMachine extends OutlineMachine<string> {
  readonly controller: string;
  readonly notes = [
    'snapshots are an in-page outline of roles and names',
    'WebKitWebDriver listens on loopback with one session, rigs’: another is refused, and every command needs its random id',
    'network lists what the egress proxy saw: https requests show as their tunnel only',
    'console is kept from rigs’ first call on a page: what a page writes while it loads is not seen',
  ];
  readonly displaySize: { width: number; height: number };
  private readonly tabIds = new Map<string, string>();
  private readonly navigations = new Map<string, number>();
  private tabCount = 0;
  private window = '';

  private constructor(
    private readonly display: DesktopMachine,
    private readonly session: string,
    proxy: EgressProxy,
  ) {
    super('webkit', proxy);
    this.displaySize = display.displaySize;
    this.controller = `WebKitWebDriver on ${new URL(session).host} (classic WebDriver) with MiniBrowser on Xvfb :${display.display}`;
  }

  static async launch(options: {
    driver: string;
    miniBrowser: string;
    folder: string;
    proxy: EgressProxy;
  }): Promise<WebKitMachine> {
    const display = await DesktopMachine.start({ folder: options.folder, windowManager: false });
    const port = await freePort();
    display.spawn(options.driver, [`--port=${port}`, '--host=local']);
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 15_000;
    for (;;) {
      const ready = await fetch(`${base}/status`).then(
        (response) => response.ok,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline) throw new ToolError('WebKitWebDriver did not answer within 15 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // libsoup takes the rig's proxy credentials in the proxy's URL.
    const proxy = new URL(options.proxy.urlWithCredentials).href.replace(/^http:\/\/|\/$/g, '');
    const created = (await call(`${base}/session`, 'POST', {
      capabilities: {
        alwaysMatch: {
          'webkitgtk:browserOptions': {
            binary: options.miniBrowser,
            args: ['--automation'],
          },
          proxy: { proxyType: 'manual', httpProxy: proxy, sslProxy: proxy },
          // A dialog stays open for the model to answer, rather than being dismissed by the next command.
          unhandledPromptBehavior: 'ignore',
        },
      },
    })) as { sessionId: string };
    const machine = new WebKitMachine(display, `${base}/session/${created.sessionId}`, options.proxy);
    // WebKit shows the proxy's 407 for the first request it sends, and sends the credentials of the
    // proxy's URL from then on: so the first is the proxy's own blank page.
    await machine.command('POST', '/url', { url: `${options.proxy.url}/` });
    options.proxy.watch((line) => machine.keep(machine.networkLines, line));
    machine.window = (await machine.command('GET', '/window')) as string;
    machine.tabOf(machine.window);
    return machine;
  }

  /** Keeps what the current page wrote to its console since the last look, and watches it from now on. */
  private async watchConsole(): Promise<void> {
    const lines = await this.evaluate<string[]>(PAGE_CONSOLE, this.refKey).catch(() => [] as string[]);
    for (const line of lines) this.keep(this.consoleLines, `[${this.tabOf(this.window)}] ${line}`);
  }

  override async drain(kind: 'console' | 'network'): Promise<BrowserAnswer> {
    if (kind === 'console') await this.watchConsole();
    return super.drain(kind);
  }

  /** Every answer looks at the page's console first, so a page is watched from rigs' first call on it. */
  protected override async answer(
    notes: string[],
    body?: string,
    paging?: BrowserAnswer['page'],
  ): Promise<BrowserAnswer> {
    await this.watchConsole();
    return super.answer(notes, body, paging);
  }

  /** The display's clipboard, which MiniBrowser's copy and paste use. */
  async clipboard(text?: string): Promise<BrowserAnswer> {
    const { notes, body } = await this.display.clipboard(text);
    return { tab: this.tabOf(this.window), body, notes };
  }

  processGroups(): number[] {
    return this.display.processGroups();
  }

  async close(): Promise<void> {
    try {
      await call(this.session, 'DELETE').catch(() => undefined);
    } finally {
      await this.proxy.close();
    }
  }

  private command(method: 'POST' | 'DELETE' | 'GET', route: string, body?: unknown): Promise<unknown> {
    return call(`${this.session}${route}`, method, body);
  }

  private tabOf(handle: string): string {
    let id = this.tabIds.get(handle);
    if (!id) {
      id = `t${++this.tabCount}`;
      this.tabIds.set(handle, id);
      this.navigations.set(handle, 0);
    }
    return id;
  }

  private navigated(): void {
    this.navigations.set(this.window, (this.navigations.get(this.window) ?? 0) + 1);
  }

  protected async currentTab() {
    return {
      tab: this.window,
      id: this.tabOf(this.window),
      navigations: this.navigations.get(this.window) ?? 0,
    };
  }

  protected async evaluate<T>(fn: string, ...args: unknown[]): Promise<T> {
    try {
      return (await this.command('POST', '/execute/sync', {
        script: `return (${fn}).apply(null, arguments);`,
        args,
      })) as T;
    } catch (error) {
      throw this.dialogError(error) ?? error;
    }
  }

  /** A command refused because a dialog is open becomes the advice to answer it. */
  private dialogError(error: unknown): ToolError | undefined {
    return /unexpected alert open/.test(firstLine(error))
      ? new ToolError(
          'a dialog is open on the page: answer it first with action dialog (accept true or false).',
        )
      : undefined;
  }

  /** The WebDriver element id of a ref of the last snapshot; a stale ref fails at once. */
  private async element(ref: string): Promise<string> {
    await this.checkRef(ref);
    const element = await this.evaluate<Record<string, string> | null>(PAGE_REF, this.refKey, ref);
    const id = element?.[ELEMENT];
    if (!id) throw staleRef(ref, 'its element left the page');
    return id;
  }

  /** Runs WebDriver commands for an action, then tells of a dialog or a new window it opened. */
  private async act(run: () => Promise<unknown>, done: string): Promise<BrowserAnswer> {
    const before = new Set((await this.command('GET', '/window/handles')) as string[]);
    try {
      await run();
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw this.dialogError(error) ?? new ToolError(`${done} failed: ${firstLine(error)}`);
    }
    const dialog = await this.command('GET', '/alert/text').then(
      (text) => text as string,
      () => undefined,
    );
    if (dialog !== undefined) {
      return {
        tab: this.tabOf(this.window),
        body: `dialog: ${dialog}`,
        notes: [done, 'a dialog opened: answer it with action dialog (accept true or false).'],
      };
    }
    const handles = (await this.command('GET', '/window/handles')) as string[];
    const opened = handles.find((handle) => !before.has(handle));
    if (opened) {
      await this.command('POST', '/window', { handle: opened });
      this.window = opened;
      return this.answer([
        done,
        `the action opened a popup; rigs adopted it as tab ${this.tabOf(opened)}, now the current tab.`,
      ]);
    }
    // A click on a link navigates: refs of the old page must go stale.
    if (!handles.includes(this.window)) this.window = handles[0] ?? this.window;
    await this.noteNavigation();
    return this.answer([done]);
  }

  /** Counts a navigation when the page's document changed since the outline's refs were made. */
  private async noteNavigation(): Promise<void> {
    const fresh = await this.evaluate<boolean>('(key) => globalThis[key] === undefined', this.refKey).catch(
      () => false,
    );
    if (fresh) this.navigated();
  }

  private async pointerTo(element: string, then: object[] = []) {
    return this.command('POST', '/actions', {
      actions: [
        {
          type: 'pointer',
          id: 'mouse',
          parameters: { pointerType: 'mouse' },
          actions: [
            { type: 'pointerMove', duration: 0, origin: { [ELEMENT]: element }, x: 0, y: 0 },
            ...then,
          ],
        },
      ],
    });
  }

  async navigate(url: string): Promise<BrowserAnswer> {
    try {
      await this.command('POST', '/url', { url });
    } catch (error) {
      throw this.dialogError(error) ?? new ToolError(`navigate to ${url} failed: ${firstLine(error)}`);
    }
    this.navigated();
    // WebDriver says nothing of the page's own load failing, so a refusal of its host is looked for.
    const target = new URL(url);
    const hostPort = `${target.hostname.replace(/^\[|\]$/g, '')}:${target.port || (target.protocol === 'https:' ? 443 : 80)}`;
    const refused = this.proxy
      .pendingRefusals()
      .find((line) => line.includes(` ${hostPort} `) || line.includes(`connect to ${target.hostname} `));
    if (refused) throw new ToolError(refused);
    return this.answer(['navigated']);
  }

  async back(): Promise<BrowserAnswer> {
    await this.command('POST', '/back', {});
    this.navigated();
    return this.answer(['went back']);
  }

  async click(
    ref: string,
    button: 'left' | 'right' | 'middle' = 'left',
    double = false,
  ): Promise<BrowserAnswer> {
    const element = await this.element(ref);
    if (button === 'left' && !double) {
      return this.act(() => this.command('POST', `/element/${element}/click`, {}), `clicked ${ref}`);
    }
    const code = { left: 0, middle: 1, right: 2 }[button];
    const one = [
      { type: 'pointerDown', button: code },
      { type: 'pointerUp', button: code },
    ];
    return this.act(() => this.pointerTo(element, double ? [...one, ...one] : one), `clicked ${ref}`);
  }

  async fill(ref: string, text: string): Promise<BrowserAnswer> {
    const element = await this.element(ref);
    return this.act(async () => {
      await this.command('POST', `/element/${element}/clear`, {});
      await this.command('POST', `/element/${element}/value`, { text });
    }, `filled ${ref}`);
  }

  async select(ref: string, values: string[]): Promise<BrowserAnswer> {
    await this.element(ref);
    const chosen = await this.optionsOf(ref, values);
    // WebDriver selects an option by clicking it; the page sees input and change as from a user.
    return this.act(async () => {
      for (const value of chosen) {
        const option = await this.evaluate<Record<string, string> | null>(
          `(key, ref, value) => [...${PAGE_REF}(key, ref).options].find((o) => o.value === value) ?? null`,
          this.refKey,
          ref,
          value,
        );
        const id = option?.[ELEMENT];
        if (id) await this.command('POST', `/element/${id}/click`, {});
      }
    }, `selected in ${ref}`);
  }

  async hover(ref: string): Promise<BrowserAnswer> {
    const element = await this.element(ref);
    return this.act(() => this.pointerTo(element), `hovered ${ref}`);
  }

  async press(key: string, ref?: string): Promise<BrowserAnswer> {
    const actions = keyActions(key);
    if (ref !== undefined) {
      await this.element(ref);
      await this.evaluate(`(key, ref) => ${PAGE_REF}(key, ref).focus()`, this.refKey, ref);
    }
    return this.act(
      () => this.command('POST', '/actions', { actions: [{ type: 'key', id: 'keyboard', actions }] }),
      `pressed ${key}`,
    );
  }

  async drag(ref: string, targetRef: string): Promise<BrowserAnswer> {
    const source = await this.element(ref);
    const target = await this.element(targetRef);
    return this.act(
      () =>
        this.pointerTo(source, [
          { type: 'pointerDown', button: 0 },
          { type: 'pointerMove', duration: 200, origin: { [ELEMENT]: target }, x: 0, y: 0 },
          { type: 'pointerUp', button: 0 },
        ]),
      `dragged ${ref} to ${targetRef}`,
    );
  }

  async upload(ref: string, files: string[]): Promise<BrowserAnswer> {
    const element = await this.element(ref);
    const isFileInput = await this.evaluate<boolean>(
      `(key, ref) => { const el = ${PAGE_REF}(key, ref); return el.tagName === 'INPUT' && el.type === 'file'; }`,
      this.refKey,
      ref,
    );
    if (!isFileInput) {
      throw unsupported(
        'webkit',
        'upload through an element that opens a file chooser',
        `${ref} is not an <input type=file>, and classic WebDriver sees no file chooser`,
        ['chromium'],
      );
    }
    return this.act(
      () => this.command('POST', `/element/${element}/value`, { text: files.join('\n') }),
      `uploaded ${files.length} file(s) through ${ref}`,
    );
  }

  async answerDialog(accept: boolean, promptText?: string): Promise<BrowserAnswer> {
    const open = await this.command('GET', '/alert/text').then(
      () => true,
      () => false,
    );
    if (!open) throw new ToolError('no dialog is open: dialog answers one that an action opened.');
    if (promptText !== undefined)
      await this.command('POST', '/alert/text', { text: promptText }).catch(() => undefined);
    await this.command('POST', accept ? '/alert/accept' : '/alert/dismiss', {});
    return this.answer([`${accept ? 'accepted' : 'dismissed'} the dialog`]);
  }

  async tabsAction(op: TabsOp, tab?: string): Promise<BrowserAnswer> {
    const handles = (await this.command('GET', '/window/handles')) as string[];
    if (op !== 'list') {
      const handle = handles.find((candidate) => this.tabOf(candidate) === tab);
      if (!handle) {
        throw new ToolError(
          `no tab ${JSON.stringify(tab)}: the tabs are ${handles.map((h) => this.tabOf(h)).join(', ')}.`,
        );
      }
      if (op === 'close') {
        if (handles.length === 1)
          throw new ToolError(`${tab} is the only tab: rig_close closes the whole rig.`);
        await this.command('POST', '/window', { handle });
        await this.command('DELETE', '/window');
        this.tabIds.delete(handle);
        const left = handles.filter((candidate) => candidate !== handle);
        this.window = handle === this.window ? (left[0] as string) : this.window;
      } else {
        this.window = handle;
      }
      await this.command('POST', '/window', { handle: this.window });
    }
    const lines: string[] = [];
    const current = this.window;
    for (const handle of (await this.command('GET', '/window/handles')) as string[]) {
      await this.command('POST', '/window', { handle });
      const [url, title] = await this.evaluate<[string, string]>('() => [location.href, document.title]');
      lines.push(`${handle === current ? '*' : ' '} ${this.tabOf(handle)} ${url} ${title}`);
    }
    await this.command('POST', '/window', { handle: current });
    return {
      tab: this.tabOf(current),
      body: lines.join('\n'),
      notes: [op === 'list' ? 'tabs (* current)' : `${op === 'select' ? 'selected' : 'closed'} ${tab}`],
    };
  }

  /** The Xvfb screen MiniBrowser draws on, as one JPEG: WebDriver's own screenshot is a PNG. */
  async screenshot(): Promise<BrowserAnswer> {
    const { image, notes } = await this.display.screenshot();
    return { ...(await this.answer(notes)), ...(image && { image }) };
  }
}

/** One WebDriver command: its `value`, or an error with the driver's message. */
async function call(url: string, method: 'POST' | 'DELETE' | 'GET', body?: unknown): Promise<unknown> {
  const response = await fetch(url, {
    method,
    ...(body !== undefined && {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
    signal: AbortSignal.timeout(60_000),
  });
  const answer = (await response.json().catch(() => ({}))) as {
    value?: { error?: string; message?: string } | unknown;
  };
  const value = answer.value as { error?: string; message?: string } | undefined;
  if (!response.ok) throw new Error(`${value?.error ?? response.status}: ${value?.message ?? ''}`.trim());
  return answer.value;
}
