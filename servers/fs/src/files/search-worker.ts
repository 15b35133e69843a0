import { parentPort, workerData } from 'node:worker_threads';
import { runSearchJob } from './search-engine.js';
import type { SearchJob } from './search-job.js';

// Runs one search job off the main thread, where a timeout can terminate it — the only way to
// stop a regular expression that backtracks catastrophically.
try {
  parentPort?.postMessage({ ok: true, outcome: runSearchJob(workerData as SearchJob) });
} catch (error) {
  parentPort?.postMessage({ ok: false, message: (error as Error).message });
}
