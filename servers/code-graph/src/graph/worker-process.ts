import type { Serializable } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';

/** How a worker ended: in words, with its last error, and whether it ran out of heap. */
export interface WorkerEnd {
  how: string;
  outOfMemory: boolean;
}

/**
 * A worker of the index: by default a child process of its own, not a thread. A thread ends with
 * its V8 heap freed, but the native memory it grew stays with the process: glibc keeps the malloc
 * arena each thread used (and those of V8's background compilers) at its high-water mark, most of
 * an idle code-graph's memory after the first precise index of this repository. A process gives
 * everything back when it exits. Messages are V8-serialized, as between threads.
 */
export interface WorkerProcess {
  send(message: unknown): void;
  onMessage(listener: (message: unknown) => void): void;
  /**
   * Whether the worker has work to answer: a busy worker keeps this process running (a one-shot
   * CLI waits for its answer); an idle one does not keep a server that is done from exiting.
   */
  busy(working: boolean): void;
  /** Calls `listener` once, when the worker has stopped (or could not start). */
  onExit(listener: (ended: WorkerEnd) => void): void;
  /** Ends the worker (if still running) and resolves once it has stopped. */
  end(): Promise<void>;
}

export interface WorkerProcessOptions {
  /** Node flags of the child, e.g. its heap bound. */
  execArgv?: string[];
  /** Arguments the worker script reads from process.argv. */
  args?: string[];
}

// child_process and worker_threads are required when the first worker starts, not imported: a
// server that never starts one (idle, or indexing little) does not load them, nor dgram and tty,
// which child_process brings.
const require = createRequire(import.meta.url);
const childProcess = (): typeof import('node:child_process') => require('node:child_process');
const workerThreads = (): typeof import('node:worker_threads') => require('node:worker_threads');

/** How much of a worker's stderr is kept to say why it stopped. */
const STDERR_KEPT = 4000;

/** The line of a worker's stderr that says what went wrong (an error's message), if any. */
function lastError(stderr: string): string {
  const lines = stderr.split('\n').map((line) => line.trim());
  return lines.find((line) => /^(\w*Error\b|FATAL ERROR)/.test(line)) ?? '';
}

export function startWorkerProcess(file: string, options: WorkerProcessOptions = {}): WorkerProcess {
  const child = childProcess().fork(file, options.args ?? [], {
    execArgv: options.execArgv ?? [],
    serialization: 'advanced',
    // stdout of a stdio server carries protocol messages only: the worker's goes to stderr.
    stdio: ['ignore', 2, 'pipe', 'ipc'],
  });
  // Its stderr is passed on, the end kept to say why it stopped.
  let stderrTail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_KEPT);
  });
  (child.stderr as Socket | null)?.unref();
  // Idle until given work.
  child.unref();
  child.channel?.unref();
  const ended = new Promise<WorkerEnd>((resolve) => {
    child.once('error', (error) => {
      if (child.pid === undefined) resolve({ how: error.message, outOfMemory: false });
    });
    // 'close' comes after the last of stderr, so the reason is in the tail.
    child.once('close', (code, signal) => {
      const words = lastError(stderrTail);
      resolve({
        how: `${signal ? `signal ${signal}` : `exit code ${code}`}${words ? `: ${words}` : ''}`,
        outOfMemory: /JavaScript heap out of memory/.test(stderrTail),
      });
    });
  });
  return {
    send: (message) => {
      if (child.connected) child.send(message as Serializable);
    },
    onMessage: (listener) => child.on('message', listener),
    busy: (working) => {
      if (working) {
        child.ref();
        child.channel?.ref();
      } else {
        child.unref();
        child.channel?.unref();
      }
    },
    onExit: (listener) => void ended.then(listener),
    end: async () => {
      // Waiting for it to stop keeps this process running, as any work does: 'close' waits for
      // the exit and for both pipes (stderr, the channel) to close, and an unref'd pipe read
      // last would let the loop empty first (a one-shot CLI then ended with code 13).
      child.ref();
      child.channel?.ref();
      (child.stderr as Socket | null)?.ref();
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await ended;
    },
  };
}

/**
 * The worker side of startWorkerProcess: `handle` gets each message from the parent, `post`
 * answers. The worker ends with its parent: once the channel closes, nothing keeps it running.
 */
export function serveParent<Request>(
  handle: (request: Request, post: (message: unknown) => void) => void | Promise<void>,
): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error(`${process.argv[1]} runs only as a worker process of the code-graph server`);
  const post = (message: unknown) => {
    if (process.connected) send(message as Serializable);
  };
  process.on('message', (request: Request) => void handle(request, post));
  process.on('disconnect', () => process.exit(0));
}

/**
 * A worker thread behind the same interface, for work that shares memory between workers (a
 * SharedArrayBuffer cannot reach another process); the native memory it grows stays when it ends.
 */
export function startWorkerThread(
  file: string,
  options: { workerData?: unknown; maxOldGenerationSizeMb?: number } = {},
): WorkerProcess {
  const worker = new (workerThreads().Worker)(file, {
    workerData: options.workerData,
    ...(options.maxOldGenerationSizeMb && {
      resourceLimits: { maxOldGenerationSizeMb: options.maxOldGenerationSizeMb },
    }),
    // stdout of a stdio server carries protocol messages only.
    stdout: true,
  });
  worker.stdout.pipe(process.stderr);
  worker.unref();
  let failure: (Error & { code?: string }) | undefined;
  worker.on('error', (error) => {
    failure = error;
  });
  const ended = once(worker, 'exit').then(
    ([code]) => ({
      how: `exit code ${code}${failure ? `: ${failure.message}` : ''}`,
      outOfMemory: failure?.code === 'ERR_WORKER_OUT_OF_MEMORY',
    }),
    (error: Error) => ({ how: error.message, outOfMemory: false }),
  );
  return {
    send: (message) => worker.postMessage(message),
    onMessage: (listener) => worker.on('message', listener),
    busy: (working) => (working ? worker.ref() : worker.unref()),
    onExit: (listener) => void ended.then(listener),
    end: async () => {
      await worker.terminate();
      await ended;
    },
  };
}
