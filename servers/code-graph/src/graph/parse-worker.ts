import { parentPort } from 'node:worker_threads';
import { readFileFacts } from './file-facts.js';
import { languageOf } from './languages.js';
import type { ParseReply, ParseRequest } from './parse-pool.js';

// A parse worker (see parse-pool.ts): reads the facts of each file it is sent, one at a time.
const port = parentPort;
if (!port) throw new Error('parse-worker.js runs only as a worker thread of the code-graph index');

port.on('message', async (request: ParseRequest) => {
  let reply: ParseReply;
  try {
    const language = languageOf(request.relative);
    if (!language) throw new Error(`no language parses ${request.relative}`);
    reply = { id: request.id, facts: await readFileFacts(language, request.relative, request.source) };
  } catch (error) {
    reply = { id: request.id, error: (error as Error).message };
  }
  port.postMessage(reply);
});
