import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ToolError } from '@toolmesh/core';
import type { FileMatch, FileSearchJob, SearchOutcome, TextMatch, TextSearchJob } from './search-job.js';

// Bundled, this module sits in dist/ beside files/search-worker.js; run from src/ (tests),
// it uses the built worker.
const WORKER_CANDIDATES = ['./files/search-worker.js', '../../dist/files/search-worker.js'].map((relative) =>
  fileURLToPath(new URL(relative, import.meta.url)),
);

function workerFile(): string {
  const found = WORKER_CANDIDATES.find((candidate) => existsSync(candidate));
  if (!found)
    throw new Error(
      `search worker not found (looked for ${WORKER_CANDIDATES.join(', ')}); build the package`,
    );
  return found;
}

export function runInWorker(
  job: TextSearchJob,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<SearchOutcome<TextMatch>>;
export function runInWorker(
  job: FileSearchJob,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<SearchOutcome<FileMatch>>;
/** Runs a search in a worker thread that is terminated on timeout or cancellation. */
export function runInWorker(
  job: TextSearchJob | FileSearchJob,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<SearchOutcome<TextMatch> | SearchOutcome<FileMatch>> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerFile(), { workerData: job });
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      void worker.terminate();
      settle();
    };
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            new ToolError(
              `The search took longer than ${options.timeoutMs / 1000} s and was stopped: narrow path or glob, or simplify the pattern.`,
              'timeout',
            ),
          ),
        ),
      options.timeoutMs,
    );
    const onAbort = () => finish(() => reject(new ToolError('The search was cancelled.', 'cancelled')));
    options.signal.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (message: { ok: boolean; outcome?: SearchOutcome<TextMatch>; message?: string }) =>
      finish(() =>
        message.ok
          ? resolve(message.outcome as SearchOutcome<TextMatch>)
          : reject(new Error(message.message)),
      ),
    );
    worker.once('error', (error) => finish(() => reject(error)));
  });
}
