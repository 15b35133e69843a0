import { type FSWatcher, promises as fs, watch } from 'node:fs';
import path from 'node:path';
import type { Logger } from '@toolmesh/core';
import { type IgnoreRules, scanFolders, scanTree } from './file-scan.js';
import { isPackageManifest } from './package-manifests.js';

export type WatchMode = 'events' | 'polling';

export interface TreeWatcherOptions {
  root: string;
  rules: IgnoreRules;
  log: Logger;
  /** Called once per batch of changed root-relative paths. */
  onChanges: (paths: Set<string>) => void;
  /** `events` (default) watches each folder and falls back to polling when the OS runs out of watches. */
  mode?: WatchMode;
  /** Quiet time that ends a batch (default 100 ms). */
  quietMs?: number;
  /** Longest a batch waits after its first change, however busy the tree (default 400 ms). */
  maxWaitMs?: number;
  pollIntervalMs?: number;
  /** One recursive fs.watch for the whole tree instead of one per folder (default: where it is native). */
  recursive?: boolean;
}

/**
 * Where one recursive fs.watch serves a whole tree: macOS and Windows watch it natively with one
 * handle. On Linux, Node (since 19.1) emulates it by walking the tree and adding an inotify watch
 * for every folder, ignored ones (node_modules, build output) included, and gives no way to fall
 * back to polling when inotify's limit is reached; there each folder the ignore rules keep gets a
 * watcher of its own.
 */
const NATIVE_RECURSIVE_WATCH = process.platform === 'darwin' || process.platform === 'win32';

/**
 * Watches a tree and reports changed paths in batches: with one recursive watch where that is
 * native, else with a watcher per folder (see NATIVE_RECURSIVE_WATCH); when the OS refuses more
 * watches — inotify's limit (ENOSPC), descriptors (EMFILE) — it says so on stderr and polls file
 * stats instead. A burst —
 * a branch switch, a formatter run — becomes one batch: the debounce ends a batch after
 * `quietMs` without changes, or `maxWaitMs` after its first change.
 */
export class TreeWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly pending = new Set<string>();
  private batchTimer: NodeJS.Timeout | undefined;
  private batchStarted = 0;
  private pollTimer: NodeJS.Timeout | undefined;
  private snapshot = new Map<string, string>();
  private closed = false;
  mode: WatchMode;

  constructor(private readonly options: TreeWatcherOptions) {
    this.mode = options.mode ?? 'events';
  }

  private get recursive(): boolean {
    return this.options.recursive ?? NATIVE_RECURSIVE_WATCH;
  }

  async start(): Promise<void> {
    if (this.mode === 'events' && this.recursive) {
      if (!this.watchFolder('', { recursive: true })) return this.startPolling();
      this.options.log.debug(`watching ${this.options.root} recursively`);
      return;
    }
    if (this.mode === 'events') {
      const folders = await scanFolders(this.options.root, this.options.rules);
      for (const folder of folders) {
        if (!this.watchFolder(folder)) return this.startPolling();
      }
      this.options.log.debug(`watching ${folders.length} folders under ${this.options.root}`);
      return;
    }
    await this.startPolling();
  }

  /** Returns false when the OS refuses more watches. */
  private watchFolder(folder: string, { recursive = false } = {}): boolean {
    if (this.closed || this.watchers.has(folder) || this.mode !== 'events') return true;
    try {
      const watcher = watch(path.join(this.options.root, folder), { recursive }, (_event, name) => {
        // A recursive watch names paths below the root with the platform's separator.
        const relative = name ? String(name).split(path.sep).join('/') : '';
        if (recursive && relative && this.options.rules.ignores(relative, false)) return;
        this.changed(relative ? (folder ? `${folder}/${relative}` : relative) : folder);
      });
      watcher.on('error', () => {
        watcher.close();
        this.watchers.delete(folder);
      });
      this.watchers.set(folder, watcher);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EMFILE') {
        this.options.log.warning(
          `cannot watch more folders (${code}: the inotify watch limit or open-file limit is reached after ${this.watchers.size} folders); falling back to polling every ${this.pollInterval()} ms. Raise fs.inotify.max_user_watches for instant updates.`,
        );
        return false;
      }
      // A folder that vanished between listing and watching is simply not watched.
      return true;
    }
  }

  private pollInterval(): number {
    return this.options.pollIntervalMs ?? 1000;
  }

  private async startPolling(): Promise<void> {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.mode = 'polling';
    this.snapshot = await this.takeSnapshot();
    const poll = async () => {
      if (this.closed) return;
      const next = await this.takeSnapshot();
      for (const [file, stamp] of next) if (this.snapshot.get(file) !== stamp) this.changed(file);
      for (const file of this.snapshot.keys()) if (!next.has(file)) this.changed(file);
      this.snapshot = next;
      if (!this.closed) this.pollTimer = setTimeout(poll, this.pollInterval());
    };
    this.pollTimer = setTimeout(poll, this.pollInterval());
  }

  private async takeSnapshot(): Promise<Map<string, string>> {
    // package.json and tsconfig.json change what imports resolve to, and a .gitignore which files
    // are indexed: the events mode sees them too.
    const files = await scanTree(
      this.options.root,
      this.options.rules,
      '',
      (name) => name === '.gitignore' || isPackageManifest(name),
    );
    const stamps = new Map<string, string>();
    await Promise.all(
      files.map(async (file) => {
        const stat = await fs.stat(path.join(this.options.root, file.path)).catch(() => undefined);
        if (stat) stamps.set(file.path, `${stat.size}:${stat.mtimeMs}`);
      }),
    );
    return stamps;
  }

  private changed(relative: string): void {
    if (this.closed) return;
    this.pending.add(relative);
    const now = Date.now();
    if (!this.batchTimer) this.batchStarted = now;
    clearTimeout(this.batchTimer);
    const quiet = this.options.quietMs ?? 100;
    const latest = this.batchStarted + (this.options.maxWaitMs ?? 400);
    this.batchTimer = setTimeout(() => void this.flush(), Math.max(0, Math.min(quiet, latest - now)));
  }

  private async flush(): Promise<void> {
    this.batchTimer = undefined;
    const batch = new Set(this.pending);
    this.pending.clear();
    if (this.mode === 'events' && !this.recursive) {
      // New folders need their own watchers, and their files count as changed; so do the folders
      // an edited .gitignore no longer ignores, wherever they are.
      const ignoresEdited = [...batch].some((relative) => path.posix.basename(relative) === '.gitignore');
      if (ignoresEdited) this.options.rules.forget();
      for (const relative of ignoresEdited ? [''] : batch) {
        const stat = await fs.stat(path.join(this.options.root, relative)).catch(() => undefined);
        if (!stat?.isDirectory() || (relative !== '' && this.options.rules.ignores(relative, true))) continue;
        for (const folder of await scanFolders(this.options.root, this.options.rules, relative)) {
          if (!this.watchFolder(folder)) {
            await this.startPolling();
            break;
          }
        }
      }
    }
    if (!this.closed && batch.size > 0) this.options.onChanges(batch);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.batchTimer);
    clearTimeout(this.pollTimer);
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}
