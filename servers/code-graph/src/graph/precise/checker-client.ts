import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { startWorkerProcess, startWorkerThread, type WorkerProcess } from '../worker-process.js';
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
 * check. A worker process gets them as its own flags; V8's flags are a process's, so with worker
 * threads the main thread compiles under the same ones from then on.
 */
const CHECKER_COMPILER_FLAGS = ['--interrupt-budget=300000', '--max-inlined-bytecode-size-cumulative=200'];
let compilerTuned = false;
function tuneCompilerForChecker(): void {
  if (compilerTuned) return;
  compilerTuned = true;
  for (const flag of CHECKER_COMPILER_FLAGS) v8.setFlagsFromString(flag);
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

/**
 * The checker worker of one root: started on the first request, one request at a time. It is a
 * process of its own (see worker-process.ts), or a thread when `threads` is set: workers that
 * split a check share the claims of its files in memory.
 */
export class CheckerClient {
  private worker: WorkerProcess | undefined;
  private pending: Pending | undefined;
  private previous: Promise<unknown> = Promise.resolve();
  /** Counts close() calls. */
  private generation = 0;

  constructor(
    private readonly root: string,
    private readonly options: { threads?: boolean } = {},
  ) {}

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
          worker.busy(true);
          worker.send(request);
        }),
    );
    this.previous = answered.catch(() => undefined);
    return answered;
  }

  private spawn(): WorkerProcess {
    const file = workerFile();
    let worker: WorkerProcess;
    if (this.options.threads) {
      tuneCompilerForChecker();
      worker = startWorkerThread(file, {
        workerData: { root: this.root },
        maxOldGenerationSizeMb: CHECKER_HEAP_MB,
      });
    } else {
      worker = startWorkerProcess(file, {
        args: [this.root],
        execArgv: [`--max-old-space-size=${CHECKER_HEAP_MB}`, ...CHECKER_COMPILER_FLAGS],
      });
    }
    worker.onMessage((received) => {
      const message = received as WorkerMessage;
      const pending = this.pending;
      if (!pending) return;
      if (message.type === 'done') {
        this.pending = undefined;
        worker.busy(false);
        pending.resolve(message);
      } else if (message.type === 'failed') {
        this.pending = undefined;
        worker.busy(false);
        pending.reject(new Error(message.message));
      } else {
        pending.onMessage(message);
      }
    });
    worker.onExit(({ how, outOfMemory }) =>
      this.lost(
        worker,
        outOfMemory
          ? new Error(
              `the TypeScript checker ran out of its ${CHECKER_HEAP_MB} MB heap; split the project into tsconfig.json projects, or turn precise mode off with --no-precise`,
            )
          : new Error(`the checker worker stopped (${how})`),
      ),
    );
    this.worker = worker;
    return worker;
  }

  private lost(worker: WorkerProcess, error: Error): void {
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
    await worker.end();
  }
}
