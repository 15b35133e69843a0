import { Readable } from 'node:stream';
import type { Request, Response } from 'express';

/**
 * The Fetch-API request for an express request whose body express already read, for the SDK's
 * web-standard handlers: method, URL and headers, no body (the handler takes the parsed one),
 * and a signal that fires when the client goes away before its answer.
 */
export function webRequestOf(req: Request, res: Response): globalThis.Request {
  const aborted = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) aborted.abort();
  });
  return new globalThis.Request(new URL(req.originalUrl, `http://${req.headers.host ?? 'localhost'}`), {
    method: req.method,
    headers: headersOf(req),
    signal: aborted.signal,
  });
}

/** An express request's headers as Fetch-API headers. */
function headersOf(req: Request): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

/** Writes a Fetch-API response (a JSON body or an event stream) to the express response. */
export async function sendWebResponse(res: Response, answer: globalThis.Response): Promise<void> {
  res.status(answer.status);
  answer.headers.forEach((value, name) => {
    res.append(name, value);
  });
  if (!answer.body) {
    res.end();
    return;
  }
  // One JSON answer is sent whole: piping it through a stream costs more than the call itself.
  if (!answer.headers.get('content-type')?.startsWith('text/event-stream')) {
    res.end(Buffer.from(await answer.arrayBuffer()));
    return;
  }
  res.flushHeaders();
  const body = Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream);
  res.once('close', () => body.destroy());
  body.on('error', () => res.destroy());
  body.pipe(res);
}
