import type { IncomingMessage } from 'node:http';

/**
 * The request's body, once it all came; undefined when the client went away first. Listeners,
 * not an async iterator or raw-body: this is on every request's path.
 */
export function readWholeBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    // After 'end' this changes nothing (every request closes once answered); before it, the client
    // is gone. No error made for it: one with its stack for every request was a forward's dearest step.
    req.once('close', () => resolve(undefined));
  });
}
