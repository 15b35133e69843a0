import { createHash } from 'node:crypto';
import { promises as fs, realpathSync } from 'node:fs';
import path from 'node:path';
import { isInside, type Logger } from '@toolmesh/core';
import { GraphQueries, type LocatedSymbol } from './graph-queries.js';
import { CHECKER_IDLE_MS, PreciseUpgrader } from './precise/precise-upgrader.js';
import { revertToSyntactic } from './precise/syntactic-revert.js';
import { followProgress } from './progress-lines.js';
import { QuietCollector } from './quiet-collector.js';
import { IndexClosed, type IndexProgress, RootIndex } from './root-index.js';
import { TreeWatcher, type WatchMode } from './tree-watcher.js';

export interface CodeGraphOptions {
  roots: readonly string[];
  /** The toolmesh data directory; each root's database is `<dataDir>/code-graph/<hash>.sqlite`. */
  dataDir: string;
  /** One database file instead (`--db`), for a single root only. */
  databaseFile?: string;
  log: Logger;
  /** Keep the graph current as files change (default events); false for one-shot use such as the CLI. */
  watch?: WatchMode | false;
  /**
   * Upgrade TypeScript and JavaScript edges with the TypeScript checker after the syntactic
   * index (default true; applies where a tsconfig.json, jsconfig.json or package.json exists).
   */
  precise?: boolean;
  /**
   * With the watcher on, how long the TypeScript checker worker outlives the last check, to
   * re-check saved files without building their programs again (default CHECKER_IDLE_MS). Without
   * the watcher it ends with each check.
   */
  checkerIdleMs?: number;
  /**
   * TypeScript checker workers the first full precise upgrade of a large root may use (default 1).
   * Two, given a second core and 3 GB free, split it to finish sooner, each holding a program's
   * memory of its own: about twice the peak.
   */
  preciseWorkers?: number;
  /**
   * Where lines saying how far a long index or precise upgrade is go, at most one every
   * `everyMs` (default PROGRESS_EVERY_MS); by default to the log at info level. False for none.
   */
  progress?: { say: (line: string) => void; everyMs?: number } | false;
}

/** Where a root's graph lives: in the data directory, named by its real path, never inside it. */
export function databaseFileFor(dataDir: string, root: string): string {
  const real = realpathSync(root);
  const digest = createHash('sha256').update(real).digest('hex').slice(0, 16);
  return path.join(dataDir, 'code-graph', `${digest}.sqlite`);
}

function realRoot(given: string): string {
  try {
    return realpathSync(given);
  } catch {
    throw new Error(`--root ${given} does not exist or cannot be read: give an existing folder`);
  }
}

/** One root's index, store queries and watcher. */
export interface IndexedRoot {
  root: string;
  index: RootIndex;
  queries: GraphQueries;
  watcher?: TreeWatcher;
  /** Precise mode, unless turned off. */
  precise?: PreciseUpgrader;
}

export interface FoundSymbol {
  root: IndexedRoot;
  symbol: LocatedSymbol;
}

/**
 * The code graph of every root: indexes them in the background at start, keeps them current
 * with a watcher, and answers from whatever is indexed so far. Knows nothing of MCP.
 *
 * Precise mode (src/graph/precise/) upgrades each root's TypeScript and JavaScript edges with
 * the TypeScript checker once the syntactic index is done, and after every watcher batch.
 */
export class CodeGraph {
  readonly roots: IndexedRoot[];
  private initial: Promise<unknown> | undefined;

  constructor(private readonly options: CodeGraphOptions) {
    if (options.databaseFile && options.roots.length > 1) {
      throw new Error('--db names one database, so it can be used with one --root only');
    }
    this.roots = options.roots.map((given) => {
      const root = realRoot(given);
      const file = options.databaseFile ?? databaseFileFor(options.dataDir, root);
      const log = options.log.child(path.basename(root));
      const index = new RootIndex(root, file, log);
      const precise =
        options.precise === false
          ? undefined
          : new PreciseUpgrader(index, {
              log,
              checkerIdleMs: options.watch === false ? 0 : (options.checkerIdleMs ?? CHECKER_IDLE_MS),
              workers: options.preciseWorkers ?? 1,
            });
      return { root, index, queries: new GraphQueries(index.store), ...(precise && { precise }) };
    });
    const progress = options.progress ?? { say: (line: string) => options.log.info(line) };
    if (progress) {
      this.stopListening = this.roots.map((entry) =>
        followProgress(entry.root, entry.index, entry.precise, progress.say, progress.everyMs),
      );
    }
    // Memory a burst of indexing left behind is given back once every root is quiet.
    const poke = () => this.collector.poke();
    for (const entry of this.roots) {
      this.stopListening.push(entry.index.onProgress(poke));
      if (entry.precise) this.stopListening.push(entry.precise.onProgress(poke));
    }
  }

  private readonly stopListening: (() => void)[] = [];
  private readonly collector = new QuietCollector(() => this.quiet);

  /** Every root indexed, nothing waiting, and no precise upgrade running or about to. */
  private get quiet(): boolean {
    return (
      this.complete &&
      this.roots.every(
        (entry) => !entry.precise || ['ready', 'off', 'failed'].includes(entry.precise.progress.state),
      )
    );
  }

  /**
   * Starts the watchers, then the first full index of every root. Watching first means a file
   * saved while the index is built is queued as a change instead of missed.
   */
  start(): Promise<unknown> {
    this.initial ??= Promise.all(
      this.roots.map(async (entry) => {
        if (this.options.watch !== false) {
          const watcher = new TreeWatcher({
            root: entry.root,
            rules: entry.index.rules,
            log: this.options.log,
            mode: this.options.watch ?? 'events',
            onChanges: (paths) => {
              entry.index.update(paths).catch((error: Error) => {
                if (!(error instanceof IndexClosed))
                  this.options.log.error(`updating ${entry.root} failed: ${error.message}`);
              });
            },
          });
          entry.watcher = watcher;
          await watcher.start();
        }
        const result = await entry.index.indexAll();
        const run = result.lastRun;
        this.options.log.info(
          `indexed ${entry.root}: ${run?.parsed ?? 0} parsed, ${run?.unchanged ?? 0} unchanged, ${run?.removed ?? 0} removed in ${run?.milliseconds ?? 0} ms`,
        );
        if (entry.precise) entry.precise.start();
        else await revertToSyntactic(entry.index);
      }),
    ).catch((error: Error) => this.options.log.error(`initial index failed: ${error.message}`));
    return this.initial;
  }

  /** Resolves when the watchers run and the first full index of every root is done. */
  ready(): Promise<unknown> {
    return this.start();
  }

  /** True when every root has finished a full index and has no changes waiting. */
  get complete(): boolean {
    return this.roots.every(
      (entry) =>
        entry.index.progress.complete &&
        entry.index.progress.pending === 0 &&
        entry.index.progress.phase === 'ready',
    );
  }

  /** Why answers may be partial, or undefined when they are not. */
  incompleteNote(): string | undefined {
    const busy = this.roots.filter(
      (entry) =>
        !entry.index.progress.complete ||
        entry.index.progress.phase !== 'ready' ||
        entry.index.progress.pending > 0,
    );
    if (busy.length === 0) return undefined;
    const parts = busy.map(({ root, index }) => {
      const { phase, done, total, pending } = index.progress;
      return `${root}: ${phase}${total ? ` ${done}/${total} files` : ''}${pending ? `, ${pending} changes pending` : ''}`;
    });
    return `The index is not complete (${parts.join('; ')}); answers cover what is indexed so far. Call index_status to follow progress.`;
  }

  /** Which files answers leave out because they could not be indexed, or undefined when none. */
  failuresNote(): string | undefined {
    const failed = this.roots.flatMap((entry) =>
      entry.index.failedFiles().map((failure) => this.displayPath(entry, failure.path)),
    );
    if (failed.length === 0) return undefined;
    const named = failed.slice(0, 3).join(', ');
    return `${failed.length} file${failed.length === 1 ? '' : 's'} could not be indexed (${named}${failed.length > 3 ? ', …' : ''}); answers leave out what they hold. index_status says why.`;
  }

  /** Paths are shown relative to the root with one root, absolute with several. */
  displayPath(entry: IndexedRoot, relative: string): string {
    return this.roots.length === 1 ? relative : path.join(entry.root, relative);
  }

  /**
   * Which root and root-relative prefix a user-given path means: relative to the first root,
   * or absolute inside any root. Undefined when it is outside every root.
   */
  locate(given: string): { root: IndexedRoot; relative: string } | undefined {
    for (const entry of this.roots) {
      const absolute = path.resolve(entry.root, given);
      if (isInside(entry.root, absolute)) {
        if (this.roots.length > 1 && !path.isAbsolute(given) && entry !== this.roots[0]) continue;
        return { root: entry, relative: path.relative(entry.root, absolute).split(path.sep).join('/') };
      }
    }
    return undefined;
  }

  findSymbols(name: string): FoundSymbol[] {
    return this.roots.flatMap((root) => root.queries.findSymbols(name).map((symbol) => ({ root, symbol })));
  }

  /** Reads a symbol's source lines from disk (the store keeps locations, not text). */
  async sourceOf(
    found: FoundSymbol,
    startLine = found.symbol.startLine,
    endLine = found.symbol.endLine,
  ): Promise<string> {
    const text = await fs.readFile(path.join(found.root.root, found.symbol.path), 'utf8');
    return text
      .split('\n')
      .slice(startLine - 1, endLine)
      .join('\n');
  }

  reindex(): Promise<IndexProgress[]> {
    return Promise.all(
      this.roots.map(async (entry) => {
        const result = await entry.index.indexAll();
        entry.precise?.refresh();
        return result;
      }),
    );
  }

  /** An answer was read from the graph: the garbage it left is collected once every root is quiet. */
  answered(): void {
    this.collector.poke();
  }

  async close(): Promise<void> {
    for (const stop of this.stopListening) stop();
    this.collector.stop();
    for (const entry of this.roots) entry.watcher?.close();
    await Promise.all(this.roots.map((entry) => entry.precise?.close()));
    await Promise.all(this.roots.map((entry) => entry.index.close()));
  }

  /** Resolves when the first index is done and no precise upgrade is running or waiting. */
  async preciseReady(): Promise<void> {
    await this.ready();
    await Promise.all(this.roots.map((entry) => entry.precise?.settled()));
  }
}
