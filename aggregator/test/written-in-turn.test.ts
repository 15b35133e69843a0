// writtenInTurn over a real loopback TCP connection whose reader stops reading: the writer waits for
// it rather than buffering without bound, and hears when it goes away.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { writtenInTurn } from '../src/ui/written-in-turn.js';

const CHUNK = 'x'.repeat(1 << 20);
const opened: net.Socket[] = [];
let server: net.Server | undefined;

/** A connected pair: the writer's end and the reader's, the reader paused. */
async function connectedPair(): Promise<{ writer: net.Socket; reader: net.Socket }> {
  let accept: (socket: net.Socket) => void = () => undefined;
  const accepted = new Promise<net.Socket>((resolve) => {
    accept = resolve;
  });
  const listening = net.createServer((socket) => accept(socket));
  server = listening;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  const writer = net.connect((listening.address() as net.AddressInfo).port, '127.0.0.1');
  // A reader that goes away resets the connection: the writer hears of it as 'close'.
  writer.on('error', () => undefined);
  const reader = await accepted;
  reader.pause();
  opened.push(writer, reader);
  return { writer, reader };
}

/**
 * Writes until a write has to wait (the kernel's buffers full, the stream holding the rest);
 * returns that write, wrapped, since an async function's promise would take on its outcome.
 */
async function writeUntilWaiting(writer: net.Socket): Promise<{ waiting: Promise<boolean> }> {
  for (let writes = 0; writes < 64; writes++) {
    const sent = writtenInTurn(writer, CHUNK);
    const now = await Promise.race([
      sent,
      new Promise<'waiting'>((resolve) => setImmediate(resolve, 'waiting')),
    ]);
    if (now === 'waiting') return { waiting: sent };
  }
  throw new Error('64 writes of 1 MiB never had to wait for a reader that reads nothing');
}

afterEach(async () => {
  for (const socket of opened.splice(0)) socket.destroy();
  await new Promise((resolve) => server?.close(resolve));
});

describe('writtenInTurn', () => {
  it('resolves true at once while the connection takes what is written', async () => {
    const { writer } = await connectedPair();
    await expect(writtenInTurn(writer, 'small')).resolves.toBe(true);
  });

  it('waits while the reader reads nothing, holding at most one write, and goes on once it reads', async () => {
    const { writer, reader } = await connectedPair();
    let settled = false;
    const pending = (await writeUntilWaiting(writer)).waiting.finally(() => {
      settled = true;
    });
    expect(writer.writableLength).toBeLessThanOrEqual(CHUNK.length);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    reader.resume();
    await expect(pending).resolves.toBe(true);
  });

  it('resolves false when the reader goes away while it waits, and at once once the stream is gone', async () => {
    const { writer, reader } = await connectedPair();
    const { waiting: pending } = await writeUntilWaiting(writer);
    reader.destroy();
    await expect(pending).resolves.toBe(false);
    await expect(writtenInTurn(writer, CHUNK)).resolves.toBe(false);
    expect(writer.listenerCount('drain')).toBe(0);
    expect(writer.listenerCount('close')).toBe(0);
  });
});
