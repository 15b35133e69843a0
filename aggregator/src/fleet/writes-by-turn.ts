import type { ServerResponse } from 'node:http';

/**
 * Sends what `res` is given within one event-loop turn as one write: a relayed answer whose last
 * event and end were read together then costs one syscall and wakes its reader once, not twice.
 * What a stream writes in later turns (progress, a server's requests) still leaves in the turn
 * it was written. `end` sends everything held at once.
 */
export function writesByTurn(res: ServerResponse): void {
  const write = res.write;
  let holding = false;
  res.write = function (this: ServerResponse, ...args: unknown[]) {
    if (!holding) {
      holding = true;
      res.cork();
      setImmediate(() => {
        holding = false;
        if (!res.writableEnded) res.uncork();
      });
    }
    return (write as (...args: unknown[]) => boolean).apply(this, args);
  } as ServerResponse['write'];
}
