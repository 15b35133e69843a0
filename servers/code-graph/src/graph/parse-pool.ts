import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@toolmesh/core';
import type { FileFacts } from './facts.js';
import type { LanguageSpec } from './language-spec.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

export interface ParseRequest {
  id: number;
  relative: string;
  source: string;
}

export type ParseReply = { id: number; facts: FileFacts } | { id: number; error: string };

/** Files asked for together that make workers worth their start: fewer are parsed in this thread. */
export const MIN_PARALLEL_FILES = 8;
/** Workers left idle this long are ended, and their memory with them. */
const IDLE_MS = 2000;

// Bundled, this module sits in dist/ beside graph/parse-worker.js. Run from src/, there is no
// built worker beside it and every file is parsed in this thread.
const BUNDLED_WORKER = fileURLToPath(new URL('./graph/parse-worker.js', import.meta.url));

interface Job {
  language: LanguageSpec;
  relative: string;
  source: string;
  resolve(facts: FileFacts): void;
  reject(error: Error): void;
}

interface PoolWorker {
  worker: WorkerProcess;
  jobs: Map<number, Job>;
  /** Source bytes sent and not answered yet: new work goes to the least loaded worker. */
  queuedBytes: number;
}

export interface ParsePoolOptions {
  log: Logger;
  /** The worker entry; by default the one built beside this bundle. */
  workerFile?: string;
  /** Worker processes to run (default one per core, at most 4). */
  size?: number;
}

/**
 * Parses files in worker processes (see worker-process.ts) when many are asked for at once (a
 * full index, a branch switch), and in this thread otherwise, where one saved file is parsed
 * fastest. Each worker loads its own tree-sitter grammars; facts come back as structured clones.
 * A worker that fails hands its files back to this thread and the pool stops using workers.
 */
export class ParsePool {
  private readonly waiting: Job[] = [];
  private readonly workers: PoolWorker[] = [];
  private readonly workerFile: string | undefined;
  private readonly size: number;
  private flushScheduled = false;
  private nextId = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private broken = false;

  constructor(private readonly options: ParsePoolOptions) {
    const file = options.workerFile ?? BUNDLED_WORKER;
    this.workerFile = existsSync(file) ? file : undefined;
    this.size = options.size ?? Math.max(1, Math.min(os.availableParallelism(), 4));
  }

  /** Worker processes running now (none between large batches). */
  get running(): number {
    return this.workers.length;
  }

  /** The facts of one file. Calls made in the same tick are dispatched together. */
  facts(language: LanguageSpec, relative: string, source: string): Promise<FileFacts> {
    return new Promise<FileFacts>((resolve, reject) => {
      this.waiting.push({ language, relative, source, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        queueMicrotask(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const jobs = this.waiting.splice(0);
    const parallel = this.workers.length > 0 || jobs.length >= MIN_PARALLEL_FILES;
    if (this.workerFile && !this.broken && parallel) {
      for (const job of jobs) this.dispatch(job);
    } else {
      void runHere(jobs);
    }
  }

  private dispatch(job: Job): void {
    clearTimeout(this.idleTimer);
    while (this.workers.length < this.size) this.workers.push(this.spawn(this.workerFile as string));
    const target = this.workers.reduce((least, entry) =>
      entry.queuedBytes < least.queuedBytes ? entry : least,
    );
    const id = this.nextId++;
    target.jobs.set(id, job);
    target.worker.busy(true);
    target.queuedBytes += job.source.length;
    target.worker.send({ id, relative: job.relative, source: job.source } satisfies ParseRequest);
  }

  private spawn(file: string): PoolWorker {
    const worker = startWorkerProcess(file);
    const entry: PoolWorker = { worker, jobs: new Map(), queuedBytes: 0 };
    worker.onMessage((message) => {
      const reply = message as ParseReply;
      const job = entry.jobs.get(reply.id);
      if (!job) return;
      entry.jobs.delete(reply.id);
      entry.queuedBytes -= job.source.length;
      if ('facts' in reply) job.resolve(reply.facts);
      else job.reject(new Error(reply.error));
      if (entry.jobs.size === 0) worker.busy(false);
      if (this.workers.every((other) => other.jobs.size === 0)) {
        this.idleTimer = setTimeout(() => void this.close(), IDLE_MS);
        this.idleTimer.unref();
      }
    });
    worker.onExit(({ how }) => this.lost(entry, new Error(`the parse worker stopped (${how})`)));
    return entry;
  }

  /** A worker gone while it held files: they are parsed here instead, and workers are not used again. */
  private lost(entry: PoolWorker, error: Error): void {
    const at = this.workers.indexOf(entry);
    if (at < 0) return;
    this.workers.splice(at, 1);
    if (entry.jobs.size === 0) return;
    this.broken = true;
    this.options.log.warning(
      `a parse worker failed (${error.message}); parsing in the indexing thread from now on`,
    );
    const jobs = [...entry.jobs.values()];
    entry.jobs.clear();
    void runHere(jobs);
  }

  /** Ends the workers; files still waiting on one are parsed in this thread. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const ending = this.workers.splice(0);
    for (const entry of ending) {
      const jobs = [...entry.jobs.values()];
      entry.jobs.clear();
      void runHere(jobs);
    }
    await Promise.all(ending.map((entry) => entry.worker.end()));
  }
}

/**
 * Parses in this thread. The parsing code (web-tree-sitter, the extractors, the HTTP route
 * detectors) is imported with the first file parsed here, not at start: an idle server holds none of it.
 */
async function runHere(jobs: Job[]): Promise<void> {
  for (const job of jobs) {
    try {
      const { readFileFacts } = await import('./file-facts.js');
      job.resolve(await readFileFacts(job.language, job.relative, job.source));
    } catch (error) {
      job.reject(error as Error);
    }
  }
}
