import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { WorkerMessage, WorkerRequest } from './checker-protocol.js';

// Bundled, this module sits in dist/ beside graph/precise/checker-worker.js; run from src/
// (tests), it uses the built worker.
const WORKER_CANDIDATES = [
  './graph/precise/checker-worker.js',
  '../../../dist/graph/precise/checker-worker.js',
].map((relative) => fileURLToPath(new URL(relative, import.meta.url)));

/**
 * The checker's heap bound. zod's 332 files take about 1 GB while checked; a project that needs
 * more stops the worker with a clear error instead of exhausting the machine.
 */
export const CHECKER_HEAP_MB = 4096;

/**
 * Each checker worker compiles the TypeScript compiler anew, and V8's background compiler spent as
 * much CPU on that as the checks took (on zod: about 9 s of 18 s, two workers). Optimizing a
 * function only after more calls, and inlining less into each, halves that without slowing the
 * check. V8's flags are the process's: the main thread compiles under the same ones from then on.
 */
let compilerTuned = false;
function tuneCompilerForChecker(): void {
  if (compilerTuned) return;
  compilerTuned = true;
  v8.setFlagsFromString('--interrupt-budget=300000');
  v8.setFlagsFromString('--max-inlined-bytecode-size-cumulative=200');
}

function workerFile(): string {
  const found = WORKER_CANDIDATES.find((candidate) => existsSync(candidate));
  if (!found)
    throw new Error(
      `the precise-mode checker worker was not found (looked for ${WORKER_CANDIDATES.join(', ')}); build the package with pnpm build`,
    );
  return found;
}

type Done = Extract<WorkerMessage, { type: 'done' }>;

interface Pending {
  resolve(done: Done): void;
  reject(error: Error): void;
  onMessage(message: WorkerMessage): void;
}

/** The checker worker of one root: started on the first request, one request at a time. */
export class CheckerClient {
  private worker: Worker | undefined;
  private pending: Pending | undefined;
  private previous: Promise<unknown> = Promise.resolve();
  /** Counts close() calls. */
  private generation = 0;

  constructor(private readonly root: string) {}

  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Sends a request once the one before it is answered (or has failed). */
  send(request: WorkerRequest, onMessage: (message: WorkerMessage) => void = () => undefined): Promise<Done> {
    const generation = this.generation;
    const answered = this.previous.then(
      () =>
        new Promise<Done>((resolve, reject) => {
          // A request queued before close() must not start a new worker.
          if (generation !== this.generation) throw new Error('the checker worker was stopped');
          const worker = this.worker ?? this.spawn();
          this.pending = { resolve, reject, onMessage };
          worker.postMessage(request);
        }),
    );
    this.previous = answered.catch(() => undefined);
    return answered;
  }

  private spawn(): Worker {
    tuneCompilerForChecker();
    const worker = new Worker(workerFile(), {
      workerData: { root: this.root },
      resourceLimits: { maxOldGenerationSizeMb: CHECKER_HEAP_MB },
      // stdout of a stdio server carries protocol messages only.
      stdout: true,
    });
    worker.stdout.pipe(process.stderr);
    worker.unref();
    worker.on('message', (message: WorkerMessage) => {
      const pending = this.pending;
      if (!pending) return;
      if (message.type === 'done') {
        this.pending = undefined;
        pending.resolve(message);
      } else if (message.type === 'failed') {
        this.pending = undefined;
        pending.reject(new Error(message.message));
      } else {
        pending.onMessage(message);
      }
    });
    worker.on('error', (error: Error & { code?: string }) =>
      this.lost(
        worker,
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new Error(
              `the TypeScript checker ran out of its ${CHECKER_HEAP_MB} MB heap; split the project into tsconfig.json projects, or turn precise mode off with --no-precise`,
            )
          : error,
      ),
    );
    worker.on('exit', (code) =>
      this.lost(worker, new Error(`the checker worker stopped (exit code ${code})`)),
    );
    this.worker = worker;
    return worker;
  }

  private lost(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(error);
  }

  /** Ends the worker, and with it every program and checker it holds. */
  async close(): Promise<void> {
    this.generation++;
    const worker = this.worker;
    if (!worker) return;
    this.lost(worker, new Error('the checker worker was stopped'));
    await worker.terminate();
  }
}
