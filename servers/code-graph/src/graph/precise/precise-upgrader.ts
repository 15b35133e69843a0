import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '@toolmesh/core';
import { linkImplementations } from '../implementations.js';
import { languageOf } from '../languages.js';
import { IndexClosed, type ResolvedBatch, type RootIndex } from '../root-index.js';
import { CheckerClient } from './checker-client.js';
import type { CheckRequest, WorkerMessage } from './checker-protocol.js';
import { EdgeUpgrade } from './edge-upgrade.js';
import { PRECISE_DIGEST, PRECISE_EDGES } from './precise-meta.js';
import { CHECKED_LANGUAGES, findProjectMarkers, type ProjectMarkers } from './project-markers.js';
import { revertToSyntactic } from './syntactic-revert.js';

/** Full upgrades of at least this many files are split between two workers. */
const SPLIT_FROM_FILES = 100;
/** The memory free for a second worker's program: zod's 332 files take about 1 GB. */
const HELPER_FREE_MEMORY_BYTES = 3 * 1024 ** 3;
/**
 * How long the checker worker, and the programs it keeps for re-checking saved files quickly,
 * outlive the last check while the watcher is on. An idle indexed root then holds only the
 * graph: the worker took 0.5 to 1 GB more for this repository.
 */
export const CHECKER_IDLE_MS = 60_000;
/**
 * The heap a lone checker worker may hold once a program is checked and still go on to the next
 * (see CheckRequest.heapBudgetBytes): past it, a fresh worker takes the files left. With the
 * graph's process beside it, the first precise index of this repository stays within 1 GB.
 */
const CHECKER_HEAP_BUDGET_BYTES = 256 * 1024 ** 2;

/** Whether a full upgrade of this many files is split between the worker and a helper. */
function splitsFullUpgrade(files: number, workers: number): boolean {
  return (
    workers > 1 &&
    files >= SPLIT_FROM_FILES &&
    os.availableParallelism() > 1 &&
    os.freemem() >= HELPER_FREE_MEMORY_BYTES
  );
}

export const PRECISE_STATES = ['waiting', 'off', 'building', 'checking', 'ready', 'failed'] as const;
export type PreciseState = (typeof PRECISE_STATES)[number];

export interface PreciseRun {
  /** Files checked and written. */
  files: number;
  partitions: number;
  /** Checker workers the run used: two split a first full upgrade of a large root (see Share). */
  workers: number;
  milliseconds: number;
  /** The process's peak resident memory so far, which includes the checker worker's. */
  peakRssBytes: number;
}

export interface PreciseProgress {
  state: PreciseState;
  /** Why precise mode is off for this root. */
  reason?: string;
  /** Files checked in the current run, of `total`. */
  done: number;
  total: number;
  /** The program being built or checked: a tsconfig.json, or `inferred (<package folder>)`. */
  partition?: string;
  lastRun?: PreciseRun;
  lastError?: string;
}

interface Work {
  targets: Set<string> | 'all';
  changed: Set<string>;
  refresh: boolean;
}

/**
 * Precise mode for one root: after the syntactic index, the TypeScript checker (in a worker)
 * upgrades the CALLS, EXTENDS, IMPLEMENTS and REFERENCES edges of every TypeScript and
 * JavaScript file; after each watcher batch it re-checks the changed files and their
 * dependents. The syntactic edges answer meanwhile. Results are written as RootIndex jobs, so
 * they never interleave with a batch, and only for files whose content the checker saw.
 */
export class PreciseUpgrader {
  readonly progress: PreciseProgress = { state: 'waiting', done: 0, total: 0 };
  private readonly listeners = new Set<(progress: PreciseProgress) => void>();
  private readonly client: CheckerClient;
  /** A second worker for the first full upgrade of a large root (see Share). */
  private readonly helper: CheckerClient;
  private readonly upgrade: EdgeUpgrade;
  private pending: Work | undefined;
  /** Whether the worker, and the helper, built programs ahead of the first run (see prepare). */
  private prepared: Promise<boolean> | undefined;
  private helperPrepared: Promise<boolean> | undefined;
  private draining: Promise<void> | undefined;
  /** Ends the idle worker once `checkerIdleMs` pass without a check (see drain). */
  private idleTimer: NodeJS.Timeout | undefined;
  private started = false;
  private closing = false;
  /** Every file has been upgraded since start, so a settled state can be recorded as complete. */
  private complete = false;

  constructor(
    private readonly index: RootIndex,
    private readonly options: {
      log: Logger;
      /** How long the worker outlives a check, for the next; 0 ends it with each check (no watcher). */
      checkerIdleMs: number;
      /** Checker workers a first full upgrade of a large root may use (see CodeGraphOptions.preciseWorkers). */
      workers: number;
    },
  ) {
    // A split check shares its files' claims in memory, which only threads can.
    const threads = options.workers > 1;
    this.client = new CheckerClient(index.root, { threads });
    this.helper = new CheckerClient(index.root, { threads });
    this.upgrade = new EdgeUpgrade(index.store);
    index.onResolved((batch) => this.afterBatch(batch));
    index.onParsed((paths) => this.prepare(paths));
  }

  /**
   * While the first syntactic index resolves (on one thread, leaving a core to the checker): when
   * the store holds no upgrade that may still be good, the worker builds the programs over the
   * files indexed, and so does the helper when the upgrade will be split, so that both start
   * checking as soon as that index is done.
   */
  private prepare(paths: readonly string[]): void {
    if (this.started || this.closing || this.index.store.meta(PRECISE_DIGEST)) return;
    const files = paths.filter((file) => CHECKED_LANGUAGES.has(languageOf(file)?.id ?? '')).sort();
    if (files.length === 0) return;
    const markers = findProjectMarkers(this.index.root, files);
    if (markers.configs.length === 0 && markers.packages.length === 0) return;
    const built = (answer: Promise<unknown>) =>
      answer.then(
        () => true,
        () => false,
      );
    if (!splitsFullUpgrade(files.length, this.options.workers)) {
      this.prepared = built(this.client.send({ type: 'prepare', files }));
      return;
    }
    this.prepared = built(this.client.send({ type: 'prepare', files, share: { index: 0, count: 2 } }));
    this.helperPrepared = built(this.helper.send({ type: 'prepare', files, share: { index: 1, count: 2 } }));
  }

  onProgress(listener: (progress: PreciseProgress) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private report(change: Partial<PreciseProgress>): void {
    Object.assign(this.progress, change);
    for (const listener of this.listeners) listener(this.progress);
  }

  /**
   * Called once the first syntactic index is done: upgrades every file, unless the stored edges
   * already are the upgrade of exactly these files and project settings.
   */
  start(): void {
    this.started = true;
    const files = this.checkedFiles();
    if (files.length === 0) {
      this.turnOff('no TypeScript or JavaScript files are indexed');
      return;
    }
    const markers = findProjectMarkers(this.index.root, files);
    if (markers.configs.length === 0 && markers.packages.length === 0) {
      this.turnOff('no tsconfig.json, jsconfig.json or package.json in the root or above it');
      return;
    }
    if (this.index.store.meta(PRECISE_DIGEST) === this.digest(files, markers)) {
      this.complete = true;
      this.report({ state: 'ready' });
      return;
    }
    this.schedule({ targets: 'all', changed: new Set(), refresh: true });
  }

  /** Upgrades every file again, configuration included (after a full re-index). */
  refresh(): void {
    if (this.started && this.progress.state !== 'off')
      this.schedule({ targets: 'all', changed: new Set(), refresh: true });
  }

  /** Resolves once no upgrade is running or waiting. */
  async settled(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** Off for this root; edges an earlier precise run wrote are resolved syntactically again. */
  private turnOff(reason: string): void {
    this.report({ state: 'off', reason });
    this.draining = revertToSyntactic(this.index)
      .catch((error: Error) => {
        if (!(error instanceof IndexClosed))
          this.options.log.warning(`re-resolving ${this.index.root} syntactically failed: ${error.message}`);
      })
      .finally(() => {
        this.draining = undefined;
      });
  }

  private checkedFiles(): string[] {
    return this.index.store
      .allFiles()
      .filter((file) => CHECKED_LANGUAGES.has(file.language))
      .map((file) => file.path)
      .sort();
  }

  /** Runs inside the batch's job: the changed files and every file that depends on them are checked again. */
  private afterBatch(batch: ResolvedBatch): void {
    if (!this.started || this.progress.state === 'off') return;
    const store = this.index.store;
    store.setMeta(PRECISE_DIGEST, '');
    const paths = new Map(store.allFiles().map((file) => [file.id, file.path]));
    const targets = new Set<string>();
    const changed = new Set<string>();
    for (const id of batch.affected) {
      const found = paths.get(id);
      if (found) targets.add(found);
    }
    for (const id of batch.changed) {
      const found = paths.get(id);
      if (!found) continue;
      changed.add(found);
      targets.add(found);
      // Inferred types flow into importers even when the file's outline stayed the same.
      for (const dependent of store.dependentsOf(id, found)) {
        const dependentPath = paths.get(dependent);
        if (dependentPath) targets.add(dependentPath);
      }
    }
    for (const removed of batch.removed) changed.add(removed);
    this.schedule({ targets, changed, refresh: false });
  }

  private schedule(work: Work): void {
    const pending = this.pending;
    if (!pending) this.pending = work;
    else {
      this.pending = {
        targets:
          pending.targets === 'all' || work.targets === 'all'
            ? 'all'
            : new Set([...pending.targets, ...work.targets]),
        changed: new Set([...pending.changed, ...work.changed]),
        refresh: pending.refresh || work.refresh,
      };
    }
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.draining ??= this.drain();
  }

  /** Whether a checker worker is running (it ends `checkerIdleMs` after the last check). */
  get checkerRunning(): boolean {
    return this.client.running || this.helper.running;
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending && !this.closing) {
        const work = this.pending;
        this.pending = undefined;
        await this.run(work);
      }
    } finally {
      this.draining = undefined;
      if (this.options.checkerIdleMs <= 0 || this.closing) await this.client.close();
      else if (!this.pending) {
        this.idleTimer = setTimeout(() => {
          this.idleTimer = undefined;
          if (!this.draining && !this.pending) void this.client.close();
        }, this.options.checkerIdleMs);
        this.idleTimer.unref();
      }
    }
  }

  private async run(work: Work): Promise<void> {
    const started = Date.now();
    const files = this.checkedFiles();
    const known = new Set(files);
    const targets = work.targets === 'all' ? files : [...work.targets].filter((file) => known.has(file));
    if (targets.length === 0) return;
    this.report({ state: 'building', done: 0, total: targets.length, partition: undefined });
    // Programs built ahead serve the first run; texts read since then are checked by hash.
    const preparedSplit = this.helperPrepared !== undefined;
    const [prepared = false, helperPrepared = false] = await Promise.all([
      this.prepared,
      this.helperPrepared,
    ]);
    this.prepared = undefined;
    this.helperPrepared = undefined;
    const hashes = new Map(this.index.store.allFiles().map((file) => [file.path, file.hash]));
    const request: CheckRequest = {
      type: 'check',
      files,
      targets,
      changed: [...work.changed],
      hashes: Object.fromEntries(files.map((file) => [file, hashes.get(file) ?? ''])),
      refresh: work.refresh && !prepared,
      // Programs are kept for the checks of saves; a full upgrade keeping one of every project
      // (a share's grown to its whole project) held the whole root in its memory at the end.
      keepPrograms: this.options.checkerIdleMs > 0 && work.targets !== 'all',
      storedNames: this.index.store.symbolNames(),
    };
    const writes: Promise<number[]>[] = [];
    const workers =
      work.targets === 'all' && (preparedSplit || splitsFullUpgrade(targets.length, this.options.workers))
        ? 2
        : 1;
    const progress = Array.from({ length: workers }, () => 0);
    const checked = new Set<string>();
    const onMessage = (share: number) => (message: WorkerMessage) => {
      if (message.type === 'progress') {
        progress[share] = message.done;
        this.report({
          state: message.phase,
          partition: message.partition,
          done: progress.reduce((sum, done) => sum + done, 0),
          total: targets.length,
        });
      } else if (message.type === 'files') {
        const files = message.files;
        for (const file of files) checked.add(file.path);
        writes.push(
          this.index.runExclusive(() => this.index.store.transaction(() => this.upgrade.apply(files))),
        );
      }
    };
    try {
      const claims = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * targets.length);
      const answers =
        workers === 1
          ? [this.checkInTurns(request, onMessage(0))]
          : [
              this.client.send({ ...request, share: { index: 0, count: 2 }, claims }, onMessage(0)),
              this.helper.send(
                {
                  ...request,
                  share: { index: 1, count: 2 },
                  claims,
                  refresh: work.refresh && !helperPrepared,
                  keepPrograms: false,
                },
                onMessage(1),
              ),
            ];
      const [done] = await Promise.all(answers);
      // The helper serves one full upgrade (and may have built programs for one that was not split).
      if (this.helper.running) await this.helper.close();
      const written = (await Promise.all(writes)).flat();
      // Each worker split the targets from the texts it read: a file edited between their reads
      // may have been left to the other, so it is checked once more, by one worker.
      const missed = workers > 1 ? targets.filter((file) => !checked.has(file)) : [];
      if (missed.length > 0) this.schedule({ targets: new Set(missed), changed: new Set(), refresh: false });
      if (work.targets === 'all') this.complete = true;
      await this.index.runExclusive(() => this.finish(files, written));
      this.report({
        state: 'ready',
        partition: undefined,
        lastRun: {
          files: written.length,
          partitions: done?.partitions ?? 0,
          workers,
          milliseconds: Date.now() - started,
          peakRssBytes: process.resourceUsage().maxRSS * 1024,
        },
      });
    } catch (error) {
      await this.helper.close();
      await Promise.allSettled(writes);
      if (error instanceof IndexClosed || this.closing) return;
      this.complete = false;
      const message = (error as Error).message;
      this.options.log.warning(
        `precise mode for ${this.index.root} failed; syntactic edges kept: ${message}`,
      );
      this.report({ state: 'failed', partition: undefined, lastError: message });
      await this.client.close();
    }
  }

  /**
   * One worker's check within CHECKER_HEAP_BUDGET_BYTES: each time the worker stops over budget,
   * it is ended and a fresh one checks the files it left.
   */
  private async checkInTurns(
    request: CheckRequest,
    onMessage: (message: WorkerMessage) => void,
  ): Promise<Extract<WorkerMessage, { type: 'done' }>> {
    const turn = { ...request, heapBudgetBytes: CHECKER_HEAP_BUDGET_BYTES };
    const first = await this.client.send(turn, onMessage);
    let checked = first.checked;
    let left = first.left;
    while (left && left.length > 0 && !this.closing) {
      await this.client.close();
      const before = checked;
      const done = await this.client.send({ ...turn, targets: left, refresh: true }, (message) =>
        onMessage(message.type === 'progress' ? { ...message, done: before + message.done } : message),
      );
      checked += done.checked;
      left = done.left;
    }
    return { type: 'done', partitions: first.partitions, checked };
  }

  /** After a run's writes: what derives from the whole graph, and the digest once all is precise. */
  private finish(files: string[], written: number[]): void {
    const store = this.index.store;
    store.transaction(() => {
      const relinked = linkImplementations(store);
      store.refreshImportance([...written, ...relinked]);
      store.setMeta(PRECISE_EDGES, '1');
      const settled = this.complete && !this.pending && this.index.progress.pending === 0;
      if (settled)
        store.setMeta(PRECISE_DIGEST, this.digest(files, findProjectMarkers(this.index.root, files)));
    });
  }

  /** What an upgrade depends on: every checked file's hash and the project files' contents. */
  private digest(files: string[], markers: ProjectMarkers): string {
    const hashes = new Map(this.index.store.allFiles().map((file) => [file.path, file.hash]));
    const digest = createHash('sha1');
    for (const file of files) digest.update(`${file}\0${hashes.get(file)}\n`);
    const projectFiles = [
      ...markers.configs,
      ...markers.packages.map((folder) => path.join(folder, 'package.json')),
    ];
    for (const file of projectFiles.sort()) {
      let text = '';
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        // A project file that vanished reads as empty, which differs from any it had.
      }
      digest.update(`${file}\0${text}\n`);
    }
    return digest.digest('hex');
  }

  async close(): Promise<void> {
    this.closing = true;
    this.pending = undefined;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    await this.helper.close();
    await this.client.close();
    await this.settled();
  }
}
