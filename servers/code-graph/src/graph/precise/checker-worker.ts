import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import { serveParent } from '../worker-process.js';
import type { WorkerMessage, WorkerRequest } from './checker-protocol.js';
import { CheckerSession } from './checker-session.js';

// The TypeScript checker runs here, in a process of its own (or a thread, see CheckerClient): the
// graph keeps answering while the programs are built and checked, and ending the worker gives
// their memory back. A full collection on demand (see CheckerSession): the flag exposes gc() to
// contexts made after it.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const root = parentPort ? (workerData as { root: string }).root : (process.argv[2] as string);
const session = new CheckerSession(root, { collectGarbage });

function handle(request: WorkerRequest, post: (message: WorkerMessage) => void): void {
  try {
    if (request.type === 'prepare') session.prepare(request, post);
    else session.run(request, post);
  } catch (error) {
    post({ type: 'failed', message: (error as Error).stack ?? String(error) });
  }
}

const port = parentPort;
if (port)
  port.on('message', (request: WorkerRequest) => handle(request, (message) => port.postMessage(message)));
else serveParent<WorkerRequest>(handle);
