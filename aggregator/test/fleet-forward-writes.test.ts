// How a forwarded request reaches its owner and its answer its client: the owner's head and first
// event leave it in one write, a last event read together with the answer's end leaves the
// forwarding replica in one write (one syscall, one wakeup of the client), the events of a
// stream still reach the client one by one, each as it comes, and a request the owner dropped
// unread goes again while one it read is never sent twice.
import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { forwardRequest, parsedBody, rawBody } from '../src/fleet/forward-request.js';
import { headWithFirstWrite } from '../src/fleet/head-with-first-write.js';

const servers: net.Server[] = [];
/** The watch of an owner never found stalled. */
const neverStalled = () => () => undefined;

afterEach(async () => {
  for (const server of servers.splice(0)) {
    if (server instanceof http.Server) server.closeAllConnections();
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
    void forwardRequest(req, res, new URL(target), {}, 'retry', neverStalled, parsedBody(req));
  });
  const server = await listen(app);
  return { url: `${server.url}/mcp`, writes: writesOf(server) };
}

/** The writes each connection of `server` made, one count per connection. */
function writesOf(server: http.Server): number[] {
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
  return writes;
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

  it("leaves the owner in one write, its head with its event, though the owner's transport flushed the head first", async () => {
    // As the SDK's transport answers a call: the event stream's head flushed at once, the result later.
    const owner = await listen((_req, res) => {
      headWithFirstWrite(res);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      setTimeout(() => res.end('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n'), 20);
    });
    const ownerWrites = writesOf(owner);
    const { url } = await forwarder(owner.url);
    const answer = await post(url);
    expect(await answer.text()).toContain('"result":{}');
    expect(ownerWrites).toEqual([1]);
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
  const app = express();
  app.post('/mcp', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void forwardRequest(
        req,
        res,
        new URL(target),
        {},
        'the owner stopped: retry',
        neverStalled,
        rawBody(Buffer.concat(chunks)),
      );
    });
  });
  const server = await listen(app);
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

/**
 * An owner whose first `resets` connections are reset once the request has come, as a replica's
 * kernel resets connections still queued when it stops listening; later ones are answered.
 */
async function resettingOwner(resets: number) {
  // Not kept alive: a server that never listened cannot close its connections at the end.
  const answering = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.setHeader('connection', 'close').end('{"jsonrpc":"2.0","id":7,"result":{}}'));
  });
  const counts = { connections: 0, requests: 0 };
  answering.on('request', () => counts.requests++);
  const server = net.createServer((socket) => {
    if (++counts.connections > resets) return answering.emit('connection', socket);
    socket.once('data', () => socket.resetAndDestroy());
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, counts };
}

describe('an owner that drops the connection', () => {
  const sent = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}';

  it('with the request unread (a reset): the request goes again and is answered once', async () => {
    const owner = await resettingOwner(2);
    const answer = await fetch(await rawForwarder(owner.url), { method: 'POST', body: sent });
    expect(await answer.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    expect(owner.counts).toEqual({ connections: 3, requests: 1 });
  });

  it('resetting every try: the client is told to retry after a few, not sent again forever', async () => {
    const owner = await resettingOwner(Number.POSITIVE_INFINITY);
    const answer = await fetch(await rawForwarder(owner.url), { method: 'POST', body: sent });
    expect(await answer.text()).toContain('the owner stopped: retry');
    expect(owner.counts.connections).toBe(4);
  });

  it('after reading the request (a hang-up, as when it dies mid-call): never sent twice', async () => {
    let requests = 0;
    const owner = await listen((req) => {
      requests++;
      req.resume();
      req.on('end', () => req.socket.destroy());
    });
    const answer = await fetch(await rawForwarder(owner.url), { method: 'POST', body: sent });
    const text = await answer.text();
    expect(text).toContain('"id":7');
    expect(text).toContain('the owner stopped: retry');
    expect(requests).toBe(1);
  });
});
