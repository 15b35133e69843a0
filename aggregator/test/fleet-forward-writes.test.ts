// How a forwarded request's answer is relayed to its client: a last event read together with the
// answer's end leaves in one write (one syscall, one wakeup of the client), and the events of a
// stream still reach the client one by one, each as it comes.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { forwardRequest, parsedBody, rawBody } from '../src/fleet/forward-request.js';

const servers: http.Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(handler: http.RequestListener): Promise<http.Server & { url: string }> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(server, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

/** A replica that forwards every POST to `target`; counts the writes each client connection got. */
async function forwarder(target: string) {
  const app = express();
  app.use(express.json());
  app.post('/mcp', (req, res) => {
    void forwardRequest(
      req,
      res,
      new URL(target),
      {},
      'retry',
      new AbortController().signal,
      parsedBody(req),
    );
  });
  const server = await listen(app);
  const writes: number[] = [];
  server.on('connection', (socket: Socket & { _writev?: unknown; _write?: unknown }) => {
    const index = writes.push(0) - 1;
    for (const name of ['_write', '_writev'] as const) {
      const original = socket[name] as (...args: unknown[]) => unknown;
      socket[name] = (...args: unknown[]) => {
        writes[index] = (writes[index] ?? 0) + 1;
        return original.apply(socket, args);
      };
    }
  });
  return { url: `${server.url}/mcp`, writes };
}

const post = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } }),
  });

describe('a forwarded answer', () => {
  it('its last event and its end, read together, reach the client in one write', async () => {
    // As the SDK answers a call: the event stream's head at once, then the result and the end together.
    const owner = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      setTimeout(() => res.end('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n'), 20);
    });
    const { url, writes } = await forwarder(owner.url);
    const answer = await post(url);
    expect(await answer.text()).toContain('"result":{}');
    expect(writes).toEqual([1]);
  });

  it('the events of a stream reach the client each as it comes, not held for the end', async () => {
    let clientSawFirst: () => void = () => undefined;
    const firstSeen = new Promise<void>((resolve) => {
      clientSawFirst = resolve;
    });
    const owner = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message\ndata: {"method":"notifications/progress"}\n\n');
      // The result comes only once the client has the progress event.
      void firstSeen.then(() => res.end('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n'));
    });
    const { url } = await forwarder(owner.url);
    const answer = await post(url);
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('notifications/progress')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before its first event: ${text}`);
      text += Buffer.from(value).toString('utf8');
    }
    clientSawFirst();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
    }
    expect(text).toContain('"result":{}');
  });
});

/** A replica that passes every POST on to `target` with its body as the client sent it, unparsed. */
async function rawForwarder(target: string) {
  const server = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = rawBody(Buffer.concat(chunks));
      void forwardRequest(
        req as express.Request,
        res as express.Response,
        new URL(target),
        {},
        'the owner stopped: retry',
        new AbortController().signal,
        body,
      );
    });
  });
  return `${server.url}/mcp`;
}

describe('a body passed on as the client sent it', () => {
  const sent = '{ "jsonrpc": "2.0", "id": 7,\n  "method": "tools/call", "params": { "name": "caf\\u00e9" } }';

  it('reaches the owner byte for byte', async () => {
    let received = '';
    const owner = await listen((req, res) => {
      req.on('data', (chunk: Buffer) => {
        received += chunk.toString('utf8');
      });
      req.on('end', () => res.end('{}'));
    });
    const answer = await fetch(await rawForwarder(owner.url), { method: 'POST', body: sent });
    expect(answer.status).toBe(200);
    expect(received).toBe(sent);
  });

  it('read only when the owner stops mid-answer: each of its requests then fails, saying to retry', async () => {
    const owner = await listen((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      setTimeout(() => res.destroy(), 20);
    });
    const answer = await fetch(await rawForwarder(owner.url), { method: 'POST', body: sent });
    const text = await answer.text();
    expect(text).toContain('"id":7');
    expect(text).toContain('the owner stopped: retry');
  });
});
