import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ToolError } from '@toolmesh/core';
import type { Browser, Page } from 'puppeteer-core';
import type { EgressProxy } from '../egress/egress-proxy.js';
import { DIE_WITH_PARENT, RIG_MARK } from '../process-group.js';
import type { Machine } from '../rig-pool.js';
import type { BrowserAnswer } from './browser-machine.js';
import type { OutlineBrowser } from './outline-browser.js';
import { PAGE_OUTLINE, PAGE_REF } from './page-outline.js';
import { type Paging, SnapshotBook, type SnapshotRequest, staleRef } from './snapshot-book.js';

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * A headless Firefox driven by puppeteer-core over WebDriver BiDi. BiDi gives no accessibility
 * tree, so snapshots are an outline built in the page (roles and names), with refs of its own.
 */
export class FirefoxMachine implements Machine, OutlineBrowser {
  readonly controller: string;
  readonly notes = [
    'snapshots are an in-page outline of roles and names (WebDriver BiDi has no accessibility tree)',
  ];
  readonly displaySize = { width: 1280, height: 720 };
  private readonly snapshots = new SnapshotBook<Page>();
  private readonly refKey = `__toolmesh_${randomBytes(6).toString('hex')}`;
  private navigations = 0;

  private constructor(
    private readonly browser: Browser,
    private readonly current: Page,
    private readonly pid: number,
    private readonly proxy: EgressProxy,
    executable: string,
  ) {
    this.controller = `puppeteer-core over WebDriver BiDi to ${executable}`;
    current.on('framenavigated', (frame) => {
      if (frame === current.mainFrame()) this.navigations++;
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

  egressRefusals(): string[] {
    return this.proxy.takeRefusals();
  }

  private async answer(
    notes: string[],
    body?: string,
    paging?: BrowserAnswer['page'],
  ): Promise<BrowserAnswer> {
    const heading = `url: ${this.current.url()}\ntitle: ${await this.current.title().catch(() => '')}`;
    return {
      tab: 't1',
      body: body === undefined ? heading : `${heading}\n\n${body}`,
      notes,
      ...(paging && { page: paging }),
    };
  }

  async navigate(url: string): Promise<BrowserAnswer> {
    let status: number | undefined;
    try {
      const response = await this.current.goto(url, { waitUntil: 'domcontentloaded', timeout: 30_000 });
      status = response?.status();
      const refusal = response?.headers()['x-toolmesh-refused'];
      if (refusal) throw new ToolError(decodeURI(refusal));
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw new ToolError(`navigate to ${url} failed: ${(error as Error).message.split('\n')[0]}`);
    }
    return this.answer([`navigated${status !== undefined ? ` (HTTP ${status})` : ''}`]);
  }

  async takeSnapshot(request: SnapshotRequest & Paging): Promise<BrowserAnswer> {
    const { lines, paging, notes } = await this.snapshots.page(
      this.current,
      this.navigations,
      request,
      async () => {
        const outline = (await this.current.evaluate(
          `${PAGE_OUTLINE}(${JSON.stringify({ key: this.refKey, scope: request.scope, depth: request.depth })})`,
        )) as string | null;
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
    this.snapshots.check(this.current, this.navigations, ref);
    const handle = await this.current.evaluateHandle(
      `${PAGE_REF}(${JSON.stringify(this.refKey)}, ${JSON.stringify(ref)})`,
    );
    const element = handle.asElement();
    if (!element) {
      await handle.dispose();
      throw staleRef(ref, 'its element left the page');
    }
    try {
      await element.click();
    } catch (error) {
      throw new ToolError(`clicked ${ref} failed: ${(error as Error).message.split('\n')[0]}`);
    } finally {
      await element.dispose();
    }
    return this.answer([`clicked ${ref}`]);
  }
}
