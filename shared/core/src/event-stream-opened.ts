import type { Response } from 'express';

/**
 * Calls `opened` once `res`, the answer to a GET on a Streamable HTTP endpoint, starts the
 * session's event stream (status 200). Until then the transport drops whatever it sends outside
 * a request of the client's (a server's own request for roots, say), so a server that wants to
 * reach the client first waits for this. Node's response says nothing when it writes its head,
 * so its `writeHead` is wrapped, for this one response only.
 */
export function onEventStreamOpened(res: Response, opened: () => void): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: Response, ...args: unknown[]) {
    res.writeHead = writeHead;
    const written = (writeHead as (...args: unknown[]) => Response).apply(this, args);
    // After the head is flushed, which the caller does right after writing it.
    if (res.statusCode === 200) queueMicrotask(opened);
    return written;
  } as Response['writeHead'];
}
