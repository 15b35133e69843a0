import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { StdioLineTransport } from '../src/stdio-line-transport.js';
import { createToolServer } from '../src/tool-server.js';
import { echoTool as echo } from './echo-tool.js';

/** A tool server on a line transport over in-process pipes, read line by line as a client would. */
async function serveOverPipes(maxMessageBytes?: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioLineTransport(stdin, stdout, { ...(maxMessageBytes && { maxMessageBytes }) });
  let closed = false;
  const server = createToolServer({ name: 't', version: '0', tools: [echo], engine: null });
  await server.connect(transport);
  transport.onclose = () => {
    closed = true;
  };
  const lines: Record<string, unknown>[] = [];
  let partial = '';
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const part of parts) lines.push(JSON.parse(part));
  });
  return {
    lines,
    closed: () => closed,
    /** Writes raw text and returns the `count` lines that come back for it. */
    async send(text: string | Buffer, count = 1) {
      const before = lines.length;
      stdin.write(text);
      while (lines.length < before + count) await new Promise((resolve) => setImmediate(resolve));
      return lines.slice(before);
    },
    close: () => server.close(),
  };
}

let current: Awaited<ReturnType<typeof serveOverPipes>> | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

describe('StdioLineTransport', () => {
  it('drops a line over the size limit with an error that names it, and goes on serving', async () => {
    current = await serveOverPipes(1024);
    const big = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { pad: 'x'.repeat(4000) } } })}\n`;
    // In pieces, as a pipe delivers it, so the limit is met across chunks.
    expect(await current.send(big.slice(0, 700), 0)).toEqual([]);
    expect(await current.send(big.slice(700, 2500), 0)).toEqual([]);
    const answers = await current.send(big.slice(2500));
    expect(answers).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringMatching(/longer than 1024 bytes was dropped unread/) },
      },
    ]);
    expect(current.closed()).toBe(false);
    expect(await current.send('{"jsonrpc":"2.0","id":2,"method":"ping"}\n')).toEqual([
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  });

  it('answers a line that is not a JSON-RPC message with what was wrong', async () => {
    current = await serveOverPipes();
    const [notJson] = await current.send('hello\n');
    expect(notJson).toMatchObject({ id: null, error: { code: -32700, message: /not JSON/ } });
    const [batch] = await current.send('[{"jsonrpc":"2.0","id":3,"method":"ping"}]\n');
    expect(batch).toMatchObject({ id: null, error: { code: -32600, message: /batches/ } });
    const [objectId] = await current.send('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}\n');
    expect(objectId).toMatchObject({ id: null, error: { code: -32600, message: /"id" must be a string/ } });
    const [oldVersion] = await current.send('{"jsonrpc":"1.0","id":4,"method":"ping"}\n');
    expect(oldVersion).toMatchObject({ id: 4, error: { code: -32600, message: /"jsonrpc" must be "2.0"/ } });
    const [badUtf8] = await current.send(Buffer.from([0xff, 0xfe, 0x0a]));
    expect(badUtf8).toMatchObject({ id: null, error: { code: -32700 } });
  });

  it('answers a request whose params do not fit its method with invalid params naming the field', async () => {
    current = await serveOverPipes();
    const [answer] = await current.send(
      '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":5,"arguments":{}}}\n',
    );
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: {
        code: -32602,
        message: expect.stringMatching(/^Invalid params for tools\/call: `params.name`: /),
      },
    });
  });

  it('leaves a malformed notification or response unanswered and a blank line alone', async () => {
    current = await serveOverPipes();
    // The one line back is the ping's: nothing came for the lines before it. An error under the
    // response's id would read as the answer to the client's own request 6.
    const lines = [
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}',
      '',
      '\r',
      '{"jsonrpc":"2.0","id":6,"result":"not an object"}',
      '{"jsonrpc":"2.0","id":6,"method":"ping"}\r',
    ];
    expect(await current.send(`${lines.join('\n')}\n`)).toEqual([{ jsonrpc: '2.0', id: 6, result: {} }]);
  });

  it('settles answered() once every request read has its answer or was cancelled', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const transport = new StdioLineTransport(stdin, stdout);
    const read: Record<string, unknown>[] = [];
    transport.onmessage = (message) => read.push(message);
    await transport.start();
    const line = (message: Record<string, unknown>) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;
    await transport.answered();
    stdin.write(
      line({ id: 1, method: 'ping' }) + line({ id: 'b', method: 'ping' }) + line({ method: 'x/y' }),
    );
    while (read.length < 3) await new Promise((resolve) => setImmediate(resolve));
    let settled = false;
    const answered = transport.answered().then(() => {
      settled = true;
    });
    await transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    // A request of the server's own is not one the client waits on.
    await transport.send({ jsonrpc: '2.0', id: 7, method: 'roots/list' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    stdin.write(line({ method: 'notifications/cancelled', params: { requestId: 'b' } }));
    await answered;
    expect(settled).toBe(true);
    await transport.close();
  });
});
