import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import type { WorkerMessage, WorkerRequest } from './checker-protocol.js';
import { CheckerSession } from './checker-session.js';

// The TypeScript checker runs here, off the main thread: the graph keeps answering while the
// programs are built and checked, and ending the worker gives all of their memory back at once.
// A full collection on demand (see CheckerSession): the flag exposes gc() to contexts made after it.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const session = new CheckerSession((workerData as { root: string }).root, { collectGarbage });
const post = (message: WorkerMessage) => parentPort?.postMessage(message);

parentPort?.on('message', (request: WorkerRequest) => {
  try {
    if (request.type === 'prepare') session.prepare(request, post);
    else session.run(request, post);
  } catch (error) {
    post({ type: 'failed', message: (error as Error).stack ?? String(error) });
  }
});
