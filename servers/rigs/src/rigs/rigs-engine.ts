import { statSync } from 'node:fs';
import path from 'node:path';
import { type Logger, PathGuard, PathRefusal, ToolError } from '@toolmesh/core';
import type { BrowserDriver, BrowserEngine } from './browser/browser-driver.js';
import { launchChromium } from './browser/chromium-launch.js';
import { FirefoxMachine } from './browser/firefox-machine.js';
import { WebKitMachine } from './browser/webkit-machine.js';
import { DesktopMachine } from './desktop/desktop-machine.js';
import { removeStaleDisplay } from './desktop/x-display.js';
import { type EgressPolicy, EgressProxy } from './egress/egress-proxy.js';
import { MobileMachine } from './mobile/mobile-machine.js';
import { findMiniBrowser, Probes, type Surface } from './probes.js';
import { type RigKey, RigPool, type RigView } from './rig-pool.js';
import { RunFolders } from './run-folders.js';

export interface RigsEngineOptions {
  /** Where rigs keep their folders: `<data>/rigs` by default. */
  dataDir: string;
  /** Folders files may be uploaded from. */
  roots?: readonly string[];
  chromium?: string;
  egress?: Partial<EgressPolicy>;
  maxRigsPerWorkspace?: number;
  idleMs?: number;
  probeTtlMs?: number;
  log?: Logger;
}

/** Who a call reuses a rig for, and how to tell them a rig is being started (it takes seconds). */
export interface Caller {
  workspace: string;
  conversation: string;
  starting?: (what: string) => void;
}

const ENGINE_NAMES: Record<BrowserEngine, string> = {
  chromium: 'Chromium',
  firefox: 'Firefox',
  webkit: 'WebKit',
};

function rigKey({ workspace, conversation }: Caller, surface: Surface, engine: string): RigKey {
  return { workspace, conversation, surface, engine };
}

/** The rigs of one server: probes, the pool, the egress proxy and the upload roots. Knows nothing of MCP. */
export class RigsEngine {
  readonly probes: Probes;
  private readonly folders: RunFolders;
  private readonly pool: RigPool;
  private readonly egress: EgressPolicy;
  private readonly uploads: PathGuard | undefined;

  constructor(private readonly options: RigsEngineOptions) {
    this.probes = new Probes({
      ...(options.chromium !== undefined && { chromium: options.chromium }),
      ...(options.probeTtlMs !== undefined && { ttlMs: options.probeTtlMs }),
    });
    this.folders = new RunFolders(path.join(options.dataDir, 'run'));
    this.pool = new RigPool({
      folders: this.folders,
      ...(options.maxRigsPerWorkspace !== undefined && { maxPerWorkspace: options.maxRigsPerWorkspace }),
      ...(options.idleMs !== undefined && { idleMs: options.idleMs }),
      onClosed: (id, why) => options.log?.info(`rig ${id} closed: ${why}`),
    });
    this.egress = {
      allowedOrigins: options.egress?.allowedOrigins ?? [],
      allowPrivateNetwork: options.egress?.allowPrivateNetwork ?? false,
    };
    this.uploads = options.roots && options.roots.length > 0 ? new PathGuard(options.roots) : undefined;
  }

  /** Ends what a crashed run of rigs left: its processes and folders. */
  async sweep(): Promise<string[]> {
    const swept = await this.folders.sweep(removeStaleDisplay);
    if (swept.length > 0)
      this.options.log?.info(`swept ${swept.length} folder(s) a stopped rigs server left`);
    return swept;
  }

  /**
   * A temp folder for the server process's own files (Playwright keeps an artifacts folder per
   * browser in the temp directory, left behind by a kill -9): inside the run folder, swept with it.
   */
  serverTemp(): string {
    return this.folders.serverTemp();
  }

  /** Throws the probe's answer when the surface cannot start here; else returns the program it found. */
  ready(surface: Surface, engine?: string): string | undefined {
    const answer = this.probes.answer(surface, engine);
    if (answer.ready) return answer.executable;
    throw new ToolError(answer.detail);
  }

  /** The caller's browser rig of `engine` (or `rigId`'s), started when there is none. */
  async browser<T>(
    caller: Caller,
    engine: BrowserEngine,
    rigId: string | undefined,
    action: (machine: BrowserDriver, rigId: string) => Promise<T>,
  ): Promise<T> {
    return this.pool.use(
      rigKey(caller, 'browser', engine),
      rigId,
      (folder) => {
        const executable = this.ready('browser', engine) as string;
        caller.starting?.(`starting a ${ENGINE_NAMES[engine]} rig`);
        return this.withProxy((proxy): Promise<BrowserDriver> => {
          if (engine === 'chromium') return launchChromium({ executable, folder, proxy });
          if (engine === 'firefox') return FirefoxMachine.launch({ executable, folder, proxy });
          return WebKitMachine.launch({
            driver: executable,
            miniBrowser: findMiniBrowser() as string,
            folder,
            proxy,
          });
        });
      },
      action,
    );
  }

  async desktop<T>(
    caller: Caller,
    rigId: string | undefined,
    action: (machine: DesktopMachine, rigId: string) => Promise<T>,
  ): Promise<T> {
    const key = rigKey(caller, 'desktop', 'xvfb');
    return this.pool.use(
      key,
      rigId,
      (folder) => {
        this.ready('desktop');
        caller.starting?.('starting a desktop rig');
        return this.withProxy((proxy) => DesktopMachine.start({ folder, proxy }));
      },
      action,
    );
  }

  /** The caller's Android rig (or `rigId`'s): a private adb server and the first device it lists. */
  async mobile<T>(
    caller: Caller,
    rigId: string | undefined,
    action: (machine: MobileMachine, rigId: string) => Promise<T>,
  ): Promise<T> {
    return this.pool.use(
      rigKey(caller, 'mobile', 'adb'),
      rigId,
      (folder) => {
        const adb = this.ready('mobile') as string;
        caller.starting?.('starting a private adb server');
        return MobileMachine.start({ adb, folder });
      },
      action,
    );
  }

  /** Each rig has its own egress proxy, so what it refused is told to that rig's callers only. */
  private async withProxy<M>(start: (proxy: EgressProxy) => Promise<M>): Promise<M> {
    const proxy = new EgressProxy(this.egress);
    await proxy.start();
    try {
      return await start(proxy);
    } catch (error) {
      await proxy.close();
      throw error;
    }
  }

  list(workspace: string): RigView[] {
    return this.pool.list(workspace);
  }

  close(workspace: string, rigId: string): Promise<void> {
    return this.pool.close(workspace, rigId);
  }

  /** The real paths of files to upload, each inside a root; anything else is refused with the rule. */
  uploadPaths(paths: readonly string[]): string[] {
    if (!this.uploads) {
      throw new ToolError(
        'uploads are off: start toolmesh-rigs with --root DIR to upload files from that folder.',
      );
    }
    if (paths.length === 0) throw new ToolError('`paths` is empty: give the files to upload.');
    const guard = this.uploads;
    return paths.map((given) => {
      try {
        const { absolute } = guard.resolve(given, 'read');
        if (!statSync(absolute).isFile()) throw new ToolError(`${given} is not a file: upload takes files.`);
        return absolute;
      } catch (error) {
        if (error instanceof PathRefusal) throw new ToolError(`upload refused: ${error.message}`);
        if (error instanceof ToolError) throw error;
        throw new ToolError(`cannot upload ${given}: ${(error as Error).message}`);
      }
    });
  }

  async shutdown(): Promise<void> {
    await this.pool.closeAll();
    this.folders.removeOwner();
  }
}
