import { readFileFacts } from './file-facts.js';
import { languageOf } from './languages.js';
import type { ParseReply, ParseRequest } from './parse-pool.js';
import { serveParent } from './worker-process.js';

// A parse worker (see parse-pool.ts): reads the facts of each file it is sent, one at a time.
serveParent<ParseRequest>(async (request, post) => {
  let reply: ParseReply;
  try {
    const language = languageOf(request.relative);
    if (!language) throw new Error(`no language parses ${request.relative}`);
    reply = { id: request.id, facts: await readFileFacts(language, request.relative, request.source) };
  } catch (error) {
    reply = { id: request.id, error: (error as Error).message };
  }
  post(reply);
});
