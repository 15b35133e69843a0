import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { ToolError } from '@toolmesh/core';
import { DesktopMachine } from '../desktop/desktop-machine.js';
import type { EgressProxy } from '../egress/egress-proxy.js';
import type { Machine } from '../rig-pool.js';
import type { BrowserAnswer } from './browser-machine.js';
import type { OutlineBrowser } from './outline-browser.js';
import { PAGE_OUTLINE, PAGE_REF } from './page-outline.js';
import { type Paging, SnapshotBook, type SnapshotRequest, staleRef } from './snapshot-book.js';

/** The key under which W3C WebDriver returns an element reference. */
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * WebKitGTK's MiniBrowser on a private Xvfb, driven by WebKitWebDriver over classic WebDriver.
 * Snapshots are the same in-page outline as Firefox's.
 */
export class WebKitMachine implements Machine, OutlineBrowser {
  readonly controller: string;
  readonly notes = [
    'snapshots are an in-page outline of roles and names',
    'WebKitWebDriver listens on a loopback port other local users could reach',
  ];
  readonly displaySize: { width: number; height: number };
  private readonly snapshots = new SnapshotBook<string>();
  private readonly refKey = `__toolmesh_${Math.random().toString(36).slice(2)}`;
  private navigations = 0;

  private constructor(
    private readonly display: DesktopMachine,
    private readonly driver: string,
    private readonly proxy: EgressProxy,
  ) {
    this.displaySize = display.displaySize;
    this.controller = `WebKitWebDriver (classic WebDriver) with MiniBrowser on Xvfb :${display.display}`;
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
    const proxy = new URL(options.proxy.url).host;
    const created = (await call(`${base}/session`, 'POST', {
      capabilities: {
        alwaysMatch: {
          'webkitgtk:browserOptions': { binary: options.miniBrowser, args: ['--automation'] },
          proxy: { proxyType: 'manual', httpProxy: proxy, sslProxy: proxy },
        },
      },
    })) as { sessionId: string };
    const machine = new WebKitMachine(display, `${base}/session/${created.sessionId}`, options.proxy);
    return machine;
  }

  processGroups(): number[] {
    return this.display.processGroups();
  }

  async close(): Promise<void> {
    try {
      await call(this.driver, 'DELETE').catch(() => undefined);
    } finally {
      await this.proxy.close();
    }
  }

  egressRefusals(): string[] {
    return this.proxy.takeRefusals();
  }

  private async answer(
    notes: string[],
    body?: string,
    paging?: BrowserAnswer['page'],
  ): Promise<BrowserAnswer> {
    const [url, title] = (await call(`${this.driver}/execute/sync`, 'POST', {
      script: 'return [location.href, document.title];',
      args: [],
    })) as [string, string];
    const heading = `url: ${url}\ntitle: ${title}`;
    return {
      tab: 't1',
      body: body === undefined ? heading : `${heading}\n\n${body}`,
      notes,
      ...(paging && { page: paging }),
    };
  }

  async navigate(url: string): Promise<BrowserAnswer> {
    try {
      await call(`${this.driver}/url`, 'POST', { url });
    } catch (error) {
      throw new ToolError(`navigate to ${url} failed: ${(error as Error).message}`);
    }
    this.navigations++;
    // WebDriver says nothing of the page's own load failing, so a refusal of its host is looked for.
    const target = new URL(url);
    const hostPort = `${target.hostname.replace(/^\[|\]$/g, '')}:${target.port || (target.protocol === 'https:' ? 443 : 80)}`;
    const refused = this.proxy
      .pendingRefusals()
      .find((line) => line.includes(` ${hostPort} `) || line.includes(`connect to ${target.hostname} `));
    if (refused) throw new ToolError(refused);
    return this.answer(['navigated']);
  }

  async takeSnapshot(request: SnapshotRequest & Paging): Promise<BrowserAnswer> {
    const { lines, paging, notes } = await this.snapshots.page(
      this.driver,
      this.navigations,
      request,
      async () => {
        const outline = (await call(`${this.driver}/execute/sync`, 'POST', {
          script: `return ${PAGE_OUTLINE}(arguments[0]);`,
          args: [{ key: this.refKey, scope: request.scope, depth: request.depth }],
        })) as string | null;
        if (outline === null) {
          throw new ToolError(
            `scope ${JSON.stringify(request.scope)} matches nothing on the page: give a ref from a snapshot or a CSS selector that matches.`,
          );
        }
        return outline;
      },
    );
    return this.answer(notes, lines.join('\n'), paging);
  }

  async click(ref: string): Promise<BrowserAnswer> {
    this.snapshots.check(this.driver, this.navigations, ref);
    const element = (await call(`${this.driver}/execute/sync`, 'POST', {
      script: `return ${PAGE_REF}(arguments[0], arguments[1]);`,
      args: [this.refKey, ref],
    })) as Record<string, string> | null;
    const id = element?.[ELEMENT];
    if (!id) throw staleRef(ref, 'its element left the page');
    try {
      await call(`${this.driver}/element/${id}/click`, 'POST', {});
    } catch (error) {
      throw new ToolError(`clicked ${ref} failed: ${(error as Error).message}`);
    }
    return this.answer([`clicked ${ref}`]);
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
