import type { ServerResponse } from 'node:http';

/**
 * Keeps `res`'s head until its first write, for the answer to a POST another replica forwarded
 * here: the MCP transport flushes an event stream's head at once, but that replica sends its
 * client nothing before the first data anyway. The head and the first event (often the whole
 * answer) then leave in one write and wake that replica once, not twice.
 */
export function headWithFirstWrite(res: ServerResponse): void {
  res.flushHeaders = () => undefined;
}
