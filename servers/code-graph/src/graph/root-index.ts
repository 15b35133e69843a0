import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isoTimestamp, type Logger, optimizeFromNowOn } from '@toolmesh/core';
import type { FileFacts } from './facts.js';
import { IgnoreRules, MAX_INDEXED_BYTES, scanTree } from './file-scan.js';
import { GraphStore, type ParsedFile, type StoredFile } from './graph-store.js';
import { linkImplementations } from './implementations.js';
import { languageOf } from './languages.js';
import { isPackageManifest } from './package-manifests.js';
import { ParsePool } from './parse-pool.js';
import { type ResolveFailure, resolveFiles } from './resolve.js';
import { goFilesIfModulesChanged, importersOfNewFiles } from './resolve-packages.js';
import { linkHttp } from './routes/link-http.js';

export type IndexPhase = 'idle' | 'scanning' | 'parsing' | 'resolving' | 'ready' | 'failed';

export interface IndexProgress {
  phase: IndexPhase;
  /** Files parsed (or found unchanged) so far in the current run. */
  done: number;
  /** Files the current run looks at. */
  total: number;
  /** True once one full index has finished since start. */
  complete: boolean;
  lastUpdate?: string;
  lastError?: string;
  /** Paths changed on disk and not yet indexed. */
  pending: number;
  /** Files parsed, found unchanged by hash, and skipped (unreadable) by the last run. */
  lastRun?: { parsed: number; unchanged: number; removed: number; milliseconds: number };
}

export type ProgressListener = (progress: IndexProgress) => void;

/**
 * A file the index could not take in, and why: its syntax could not be read (`parse`: the file is
 * left out) or its edges could not be resolved (`resolve`: its symbols are kept, without edges).
 * It is tried again whenever it changes and at every full index.
 */
export interface FileFailure {
  path: string;
  stage: 'parse' | 'resolve';
  error: string;
}

/** Meta keys: the failures above, and a flag set while stored files may lack their edges. */
const FAILED_FILES = 'failed_files';
const RESOLVING = 'resolving';

/** A batch's files as resolved: those parsed (by id), those re-resolved (by id), and the paths removed. */
export interface ResolvedBatch {
  changed: number[];
  affected: number[];
  removed: string[];
}

/** One file of a slice: what is on disk, what is stored, and its parse when its content changed. */
interface SliceEntry {
  reading: { source: string; hash: string } | undefined;
  stored: StoredFile | undefined;
  parsed?: Promise<ParsedFile | undefined>;
}

/** Thrown into queued work once the index is closing; nobody waits for that work any more. */
export class IndexClosed extends Error {
  override readonly name = 'IndexClosed';
}

/** How many files are parsed before the event loop gets a turn, so tools keep answering. */
const FILES_PER_SLICE = 16;
/** Slices read and parsing ahead of the one being written. */
const SLICES_AHEAD = 4;

/**
 * The graph of one root: keeps its SQLite store in step with the files on disk. All work runs
 * one job at a time on a queue, so a watcher batch never interleaves with a full re-index.
 */
export class RootIndex {
  readonly store: GraphStore;
  readonly rules: IgnoreRules;
  private queue: Promise<unknown> = Promise.resolve();
  private closing = false;
  private readonly listeners = new Set<ProgressListener>();
  private readonly resolvedListeners = new Set<(batch: ResolvedBatch) => void>();
  private readonly pendingPaths = new Set<string>();
  private readonly parsing: ParsePool;
  readonly progress: IndexProgress = { phase: 'idle', done: 0, total: 0, complete: false, pending: 0 };
  private readonly failures = new Map<string, FileFailure>();

  constructor(
    readonly root: string,
    databaseFile: string,
    private readonly log: Logger,
  ) {
    this.store = new GraphStore(databaseFile);
    this.rules = new IgnoreRules(root);
    this.parsing = new ParsePool({ log });
    const last = this.store.meta('last_update');
    if (last) this.progress.lastUpdate = last;
    for (const failure of JSON.parse(this.store.meta(FAILED_FILES) ?? '[]') as FileFailure[])
      this.failures.set(failure.path, failure);
  }

  /** The files the index could not take in, by path. */
  failedFiles(): FileFailure[] {
    return [...this.failures.values()].sort((a, b) => a.path.localeCompare(b.path));
  }

  /** Records the outcome of resolving `fileIds`: failures replace what was known of those files. */
  noteResolved(fileIds: Iterable<number>, failed: readonly ResolveFailure[]): void {
    const resolved = new Set(fileIds);
    for (const failure of this.failures.values()) {
      if (failure.stage !== 'resolve') continue;
      const id = this.store.fileByPath(failure.path)?.id;
      if (id === undefined || resolved.has(id)) this.failures.delete(failure.path);
    }
    for (const failure of failed) {
      this.failures.set(failure.path, { path: failure.path, stage: 'resolve', error: failure.error });
      this.log.warning(`could not resolve the edges of ${failure.path}: ${failure.error}`);
    }
    this.saveFailures();
  }

  private saveFailures(): void {
    this.store.setMeta(FAILED_FILES, JSON.stringify(this.failedFiles()));
  }

  onProgress(listener: ProgressListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private report(change: Partial<IndexProgress>): void {
    Object.assign(this.progress, change, { pending: this.pendingPaths.size });
    for (const listener of this.listeners) listener(this.progress);
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const guarded = () => (this.closing ? Promise.reject(new IndexClosed()) : job());
    const run = this.queue.then(guarded, guarded);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Brings the whole root up to date: new and changed files parsed, vanished ones removed. */
  indexAll(): Promise<IndexProgress> {
    return this.enqueue(async () => {
      const started = Date.now();
      try {
        this.rules.forget();
        this.report({ phase: 'scanning', done: 0, total: 0 });
        const scanned = await scanTree(this.root, this.rules);
        const onDisk = new Set(scanned.map((file) => file.path));
        const gone = this.store
          .allFiles()
          .filter((file) => !onDisk.has(file.path))
          .map((file) => file.path);
        const result = await this.applyChanges(
          [...scanned.map((file) => file.path), ...gone],
          started,
          () => {
            for (const listener of this.parsedListeners) listener([...onDisk]);
          },
        );
        this.report({ complete: true });
        return result;
      } catch (error) {
        if (error instanceof IndexClosed) return this.progress;
        this.report({ phase: 'failed', lastError: (error as Error).message });
        this.log.error(`indexing ${this.root} failed`, { error: (error as Error).stack });
        throw error;
      }
    });
  }

  /** Re-indexes the given root-relative paths (files or folders; gone ones are removed). */
  update(paths: Iterable<string>): Promise<IndexProgress> {
    for (const changed of paths) this.pendingPaths.add(changed);
    this.report({});
    return this.enqueue(async () => {
      const batch = [...this.pendingPaths];
      this.pendingPaths.clear();
      if (batch.length === 0) return this.progress;
      if (batch.some((changed) => changed === '.gitignore' || changed.endsWith('/.gitignore'))) {
        // A changed ignore file can add or drop any file: look at the whole tree again.
        this.rules.forget();
        const scanned = await scanTree(this.root, this.rules);
        const onDisk = new Set(scanned.map((file) => file.path));
        const gone = this.store.allFiles().filter((file) => !onDisk.has(file.path));
        return this.applyChanges([...onDisk, ...gone.map((file) => file.path)], Date.now());
      }
      const expanded = new Set<string>();
      for (const changed of batch) {
        const stat = await fs.stat(path.join(this.root, changed)).catch(() => undefined);
        if (stat?.isDirectory()) {
          if (this.rules.ignores(changed, true)) continue;
          for (const file of await scanTree(this.root, this.rules, changed)) expanded.add(file.path);
        } else {
          expanded.add(changed);
        }
        // A folder that was removed or renamed away takes its indexed files with it.
        if (!stat) {
          for (const file of this.store.allFiles())
            if (file.path.startsWith(`${changed}/`)) expanded.add(file.path);
        }
      }
      return this.applyChanges([...expanded], Date.now());
    });
  }

  /** Parses what changed by content hash, removes what is gone, then re-resolves the affected files. */
  private async applyChanges(
    paths: string[],
    started: number,
    beforeResolving?: () => void,
  ): Promise<IndexProgress> {
    // Parsing and linking files is hot code: the bin held V8's optimizing compiler off for start-up.
    if (paths.length > 0) optimizeFromNowOn();
    // An empty store gets every row now: its deferred indexes are built once, after their rows.
    const bulk = this.store.isEmpty();
    if (!bulk) return this.writeChanges(paths, started, false, beforeResolving);
    this.store.dropDeferredIndexes();
    try {
      return await this.writeChanges(paths, started, true, beforeResolving);
    } finally {
      this.store.buildDeferredIndexes('beforeResolving');
      this.store.buildDeferredIndexes('afterResolving');
    }
  }

  private async writeChanges(
    paths: string[],
    started: number,
    bulk: boolean,
    beforeResolving?: () => void,
  ): Promise<IndexProgress> {
    this.report({ phase: 'parsing', done: 0, total: paths.length });
    for (const relative of paths)
      if (this.failures.get(relative)?.stage === 'parse') this.failures.delete(relative);
    // A run that stopped between storing files and resolving them left them without edges: the
    // next one, finding them unchanged, must still resolve them.
    const unfinished = this.store.meta(RESOLVING) === '1';
    this.store.setMeta(RESOLVING, '1');
    const changedIds = new Set<number>();
    const parsedFacts = new Map<number, FileFacts>();
    const dependents = new Set<number>();
    const newNames = new Set<string>();
    let parsed = 0;
    let unchanged = 0;
    let removed = 0;
    let addedFiles = false;
    const added: ParsedFile[] = [];
    const removedPaths: string[] = [];
    const parsedPaths: string[] = [];
    const sliceAt = (start: number) => paths.slice(start, start + FILES_PER_SLICE);
    // The next slices are read and parsed (in worker processes when large) while this one is
    // written, enough of them that no worker waits for the writes.
    const ahead: Promise<SliceEntry[]>[] = [];
    let readFrom = 0;
    const readMore = () => {
      while (ahead.length < SLICES_AHEAD && readFrom < paths.length) {
        const reading = this.readAhead(sliceAt(readFrom));
        reading.catch(() => undefined);
        ahead.push(reading);
        readFrom += FILES_PER_SLICE;
      }
    };
    for (let start = 0; start < paths.length; start += FILES_PER_SLICE) {
      if (this.closing) throw new IndexClosed();
      const slice = sliceAt(start);
      readMore();
      const entries = await (ahead.shift() as Promise<SliceEntry[]>);
      readMore();
      const parsedSlice: ParsedFile[] = [];
      const parsing: Promise<ParsedFile | undefined>[] = [];
      for (const [position, relative] of slice.entries()) {
        const { reading, stored, parsed } = entries[position] as SliceEntry;
        if (parsed) {
          parsing.push(parsed);
          continue;
        }
        if (reading) {
          unchanged++;
          continue;
        }
        if (stored) {
          for (const id of this.store.dependentsOf(stored.id, relative)) dependents.add(id);
          this.store.transaction(() => this.store.removeFile(stored.id));
          removedPaths.push(relative);
          removed++;
        }
      }
      for (const file of await Promise.all(parsing)) if (file) parsedSlice.push(file);
      this.store.transaction(() => {
        for (const file of parsedSlice) {
          const stored = this.store.fileByPath(file.path);
          const before = stored ? this.store.factsOf(stored.id) : undefined;
          // Other files resolve against what a file declares and imports, not against its bodies:
          // only when that outline changed do they need resolving again.
          if (stored && before && !onlyAdds(before, file.facts)) {
            for (const id of this.store.dependentsOf(stored.id, file.path)) dependents.add(id);
          }
          if (!stored) {
            addedFiles = true;
            added.push(file);
          }
          const known = new Set(before?.symbols.map((symbol) => symbol.name));
          for (const symbol of file.facts.symbols) if (!known.has(symbol.name)) newNames.add(symbol.name);
          const id = this.store.putFile(file);
          changedIds.add(id);
          parsedFacts.set(id, file.facts);
          parsedPaths.push(file.path);
          parsed++;
        }
      });
      this.report({ done: Math.min(paths.length, start + slice.length) });
      await new Promise((resolve) => setImmediate(resolve));
    }
    beforeResolving?.();
    // A package.json or tsconfig.json changes what a package's imports of itself mean.
    const manifestsChanged = paths.some(isPackageManifest);
    const retried = [...this.failures.values()]
      .filter((failure) => failure.stage === 'resolve')
      .map((failure) => this.store.fileByPath(failure.path)?.id)
      .filter((id): id is number => id !== undefined);
    if (changedIds.size > 0 || removed > 0 || manifestsChanged || unfinished || retried.length > 0) {
      this.report({ phase: 'resolving' });
      this.store.transaction(() => {
        if (bulk) this.store.buildDeferredIndexes('beforeResolving');
        const affected = new Set([...changedIds, ...dependents, ...retried]);
        if (unfinished) for (const file of this.store.allFiles()) affected.add(file.id);
        if (manifestsChanged) for (const id of this.store.filesWithPackageImports()) affected.add(id);
        if (addedFiles) for (const id of this.store.filesWithOpenImports()) affected.add(id);
        // A file joining a Go package, Java package or C# namespace adds to what importers of it see.
        for (const id of importersOfNewFiles(this.store, added)) affected.add(id);
        for (const id of goFilesIfModulesChanged(this.store, [...parsedPaths, ...removedPaths]))
          affected.add(id);
        for (const name of newNames) for (const id of this.store.filesWithUnresolved(name)) affected.add(id);
        this.noteResolved(affected, resolveFiles(this.store, affected, { root: this.root, parsedFacts }));
        // What follows reads edges by file and by target.
        if (bulk) this.store.buildDeferredIndexes('afterResolving');
        const httpLinked = linkHttp(this.store, parsedFacts);
        // Both derive from the whole resolved graph, so they follow every batch.
        const relinked = linkImplementations(this.store);
        this.store.refreshImportance([...affected, ...relinked, ...httpLinked]);
        const batch = { changed: [...changedIds], affected: [...affected], removed: removedPaths };
        for (const listener of this.resolvedListeners) listener(batch);
      });
    }
    this.store.setMeta(RESOLVING, '0');
    this.saveFailures();
    const lastUpdate = isoTimestamp();
    this.store.setMeta('last_update', lastUpdate);
    this.report({
      phase: 'ready',
      lastError: undefined,
      lastUpdate,
      lastRun: { parsed, unchanged, removed, milliseconds: Date.now() - started },
    });
    return { ...this.progress };
  }

  /** Reads a slice's files and starts parsing those whose content changed, all at once. */
  private async readAhead(slice: string[]): Promise<SliceEntry[]> {
    const readings = await Promise.all(slice.map((relative) => this.read(relative)));
    return slice.map((relative, position) => {
      const reading = readings[position];
      const stored = this.store.fileByPath(relative);
      const changed = reading !== undefined && stored?.hash !== reading.hash;
      return {
        reading,
        stored,
        ...(changed && { parsed: this.parse(relative, reading.source, reading.hash) }),
      };
    });
  }

  /** The file's text and hash; undefined when it is gone, unreadable, unsupported or ignored. */
  private async read(relative: string): Promise<{ source: string; hash: string } | undefined> {
    if (!languageOf(relative) || this.rules.ignores(relative, false)) return undefined;
    const absolute = path.join(this.root, relative);
    const stat = await fs.lstat(absolute).catch(() => undefined);
    if (!stat?.isFile() || stat.size > MAX_INDEXED_BYTES) return undefined;
    const bytes = await fs.readFile(absolute).catch(() => undefined);
    if (!bytes) return undefined;
    return { source: bytes.toString('utf8'), hash: createHash('sha1').update(bytes).digest('hex') };
  }

  private async parse(relative: string, source: string, hash: string): Promise<ParsedFile | undefined> {
    const language = languageOf(relative);
    if (!language) return undefined;
    try {
      const facts = await this.parsing.facts(language, relative, source);
      return {
        path: relative,
        language: language.id,
        hash,
        bytes: Buffer.byteLength(source),
        lines: source.split('\n').length,
        facts,
      };
    } catch (error) {
      // One file the extractor cannot read must not stop the rest of the index.
      const message = (error as Error).message;
      this.log.warning(`could not index ${relative}: ${message}`);
      this.failures.set(relative, { path: relative, stage: 'parse', error: message });
      return undefined;
    }
  }

  /** Stops after the file being parsed, waits for the queue, then closes the database. */
  async close(): Promise<void> {
    this.closing = true;
    await this.queue;
    await this.parsing.close();
    this.store.close();
  }

  private readonly parsedListeners = new Set<(paths: readonly string[]) => void>();

  /** Called when a full index has parsed its files, before it resolves them (one thread's work). */
  onParsed(listener: (paths: readonly string[]) => void): () => void {
    this.parsedListeners.add(listener);
    return () => this.parsedListeners.delete(listener);
  }

  /** Called inside each batch's resolving transaction, after its edges are rebuilt. */
  onResolved(listener: (batch: ResolvedBatch) => void): () => void {
    this.resolvedListeners.add(listener);
    return () => this.resolvedListeners.delete(listener);
  }

  /** Runs `job` on the queue, between batches, as the precise upgrade writes its edges. */
  runExclusive<T>(job: () => T | Promise<T>): Promise<T> {
    return this.enqueue(async () => job());
  }
}

/**
 * Whether `after` keeps everything other files can see of `before` — its declarations, imports,
 * field types and bases — and at most adds declarations. Other files then resolve as they did;
 * only their calls to the added names (found by name) can change.
 */
function onlyAdds(before: FileFacts, after: FileFacts): boolean {
  const declared = (facts: FileFacts) =>
    facts.symbols.map((symbol) =>
      JSON.stringify([
        symbol.kind,
        symbol.qualifiedName,
        symbol.exported,
        symbol.returns,
        facts.symbols[symbol.parent ?? -1]?.qualifiedName,
      ]),
    );
  const rest = (facts: FileFacts) =>
    JSON.stringify({
      imports: facts.imports.map((fact) => [fact.specifier, fact.bindings, fact.reexport, fact.star]),
      fields: Object.fromEntries(
        Object.entries(facts.fields).map(([owner, fields]) => [
          facts.symbols[Number(owner)]?.qualifiedName,
          fields,
        ]),
      ),
      bases: facts.typeUses
        .filter((use) => use.relation !== 'REFERENCES')
        .map((use) => [facts.symbols[use.user ?? -1]?.qualifiedName, use.type, use.relation]),
      defaultExport: facts.defaultExport,
    });
  if (rest(before) !== rest(after)) return false;
  const kept = new Set(declared(after));
  return declared(before).every((symbol) => kept.has(symbol));
}
