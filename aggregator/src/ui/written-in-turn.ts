import type { Writable } from 'node:stream';

/**
 * Writes `chunk` and resolves once the reader has taken in what was buffered: true, or false when
 * the stream closed first (its client went away). A long answer written this way holds one chunk
 * in memory, however slowly its client reads.
 */
export function writtenInTurn(stream: Writable, chunk: string): Promise<boolean> {
  if (stream.destroyed) return Promise.resolve(false);
  if (stream.write(chunk)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const settle = (drained: boolean) => () => {
      stream.off('drain', onDrain);
      stream.off('close', onClose);
      resolve(drained);
    };
    const onDrain = settle(true);
    const onClose = settle(false);
    stream.on('drain', onDrain);
    stream.on('close', onClose);
  });
}
