import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ListRootsRequestSchema,
  ListRootsResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpFront, startHttpFront } from '../src/http-front.js';
import { createLogger } from '../src/logger.js';
import { SessionTransport } from '../src/session-transport.js';
import { rawPost as postRaw, type RawAnswer } from './raw-post.js';

const quiet = createLogger({ level: 'error', sink: () => undefined });

/** Calls of the `wait` tool waiting for their release, by the text they were called with. */
const waiting = new Map<string, () => void>();

/**
 * A v1 server whose tools reach their client while a call runs: `ask` sends a progress
 * notification and asks for the client's roots before it answers; `wait` answers once released.
 */
function sessionServer(): Server {
  const server = new Server({ name: 'lane', version: '1' }, { capabilities: { tools: {} } });
  // A call of `unreadable` fails where the server takes its message, before any handler runs.
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    await connect(transport);
    const take = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if ('params' in message && message.params?.name === 'unreadable') throw new Error('unreadable');
      take?.(message, extra);
    };
  };
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const text = String(request.params.arguments?.text ?? '');
    if (request.params.name === 'wait') {
      await new Promise<void>((resolve) => waiting.set(text, resolve));
      return { content: [{ type: 'text', text }] };
    }
    const token = request.params._meta?.progressToken;
    if (token !== undefined)
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: 1, total: 2 },
      });
    const { roots } = await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema);
    return { content: [{ type: 'text', text: `${text} ${roots.map((root) => root.uri).join(' ')}` }] };
  });
  return server;
}

let front: HttpFront;
beforeAll(async () => {
  front = await startHttpFront({ createServer: sessionServer, host: '127.0.0.1', port: 0, log: quiet });
});
afterAll(() => front.close());

/** A POST of `body` to the front's endpoint, or to `url`. */
function rawPost(headers: http.OutgoingHttpHeaders, body: unknown, url = front.url): Promise<RawAnswer> {
  return postRaw(url, headers, JSON.stringify(body));
}

async function openSession(url = front.url): Promise<Record<string, string>> {
  const opened = await rawPost(
    {},
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    },
    url,
  );
  const session = {
    'mcp-session-id': String(opened.headers['mcp-session-id']),
    'mcp-protocol-version': '2025-06-18',
  };
  await rawPost(session, { jsonrpc: '2.0', method: 'notifications/initialized' }, url);
  return session;
}

const waitCall = (id: number, text: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'wait', arguments: { text } },
});

/** Releases the `wait` call of `text` once it runs. */
async function release(text: string): Promise<void> {
  await expect.poll(() => waiting.has(text)).toBe(true);
  waiting.get(text)?.();
  waiting.delete(text);
}

/** What stays the same from one answer to the next: the date and the framing of the body aside. */
function lasting({ status, headers, text }: RawAnswer) {
  const { date, 'transfer-encoding': _chunked, 'content-length': _length, ...rest } = headers;
  return { status, headers: rest, text };
}

describe('a 2025 session over HTTP, a plain tools/call', () => {
  it('is answered on an event stream with the headers and framing of the SDK', async () => {
    const session = await openSession();
    // A batch of one is the SDK's to serve: the same call, answered by it.
    const bySdk = rawPost(session, [waitCall(1, 'sdk')]);
    await release('sdk');
    const plain = rawPost(session, waitCall(1, 'plain'));
    await release('plain');
    const sdk = lasting(await bySdk);
    expect(sdk.headers['content-type']).toBe('text/event-stream');
    expect(lasting(await plain)).toEqual({ ...sdk, text: sdk.text.replace('"sdk"', '"plain"') });
    expect(sdk.text).toBe(
      `event: message\ndata: ${JSON.stringify({ result: { content: [{ type: 'text', text: 'sdk' }] }, jsonrpc: '2.0', id: 1 })}\n\n`,
    );
  });

  it('carries the notifications and requests of its server to its client while it runs', async () => {
    const client = new Client({ name: 'lane', version: '1' }, { capabilities: { roots: {} } });
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///work' }] }));
    await client.connect(new StreamableHTTPClientTransport(new URL(front.url)));
    try {
      const progress: number[] = [];
      const result = await client.request(
        { method: 'tools/call', params: { name: 'ask', arguments: { text: 'roots:' } } },
        CallToolResultSchema,
        { onprogress: ({ progress: done }) => progress.push(done) },
      );
      expect(result.content).toEqual([{ type: 'text', text: 'roots: file:///work' }]);
      expect(progress).toEqual([1]);
    } finally {
      await client.close();
    }
  });

  it('is refused as the SDK refuses it when a header is wrong', async () => {
    const session = await openSession();
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask', arguments: {} } };
    const notAccepted = await rawPost({ ...session, accept: 'application/json' }, call);
    expect(notAccepted.status).toBe(406);
    const version = await rawPost({ ...session, 'mcp-protocol-version': '1999-01-01' }, call);
    expect(version.status).toBe(400);
    expect(version.text).toContain('Unsupported protocol version');
    // Node keeps the first of two Content-Type headers; the SDK reads both, and refuses them.
    const twice = await rawPost({ ...session, 'content-type': ['application/json', 'text/plain'] }, call);
    expect(twice.status).toBe(415);
  });

  it('is answered as the SDK answers a message its server cannot take', async () => {
    const session = await openSession();
    const call = {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'unreadable', arguments: {} },
    };
    const bySdk = lasting(await rawPost(session, [call]));
    expect(bySdk.status).toBe(400);
    expect(bySdk.text).toContain('Parse error');
    expect(lasting(await rawPost(session, call))).toEqual(bySdk);
  });

  it('has its stream ended when its session is deleted while it runs, as the SDK ends its own', async () => {
    const session = await openSession();
    const running = rawPost(session, waitCall(3, 'deleted'));
    await expect.poll(() => waiting.has('deleted')).toBe(true);
    const deleted = await fetch(front.url, { method: 'DELETE', headers: session });
    expect(deleted.status).toBe(200);
    const answer = await running;
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('');
    await release('deleted');
  });

  it('is left to the SDK on a transport that checks Host itself', async () => {
    let transport: SessionTransport | undefined;
    const server = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      req.once('end', () => void transport?.handleRequest(req, res, JSON.parse(text)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(server.address() as { port: number }).port}`;
    transport = new SessionTransport({
      sessionIdGenerator: () => 'hosts',
      enableDnsRebindingProtection: true,
      allowedHosts: [host],
    });
    await sessionServer().connect(transport);
    const url = `http://${host}/mcp`;
    try {
      const session = await openSession(url);
      const answer = await rawPost({ ...session, host: 'rebound.example' }, waitCall(6, 'rebound'), url);
      expect(answer.status).toBe(403);
      expect(waiting.has('rebound')).toBe(false);
    } finally {
      await transport.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('is left to the SDK on a transport that answers in JSON', async () => {
    const transport = new SessionTransport({ sessionIdGenerator: () => 'json', enableJsonResponse: true });
    await sessionServer().connect(transport);
    const server = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      req.once('end', () => void transport.handleRequest(req, res, JSON.parse(text)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
    try {
      const session = await openSession(url);
      const answer = rawPost(session, waitCall(5, 'json'), url);
      await release('json');
      const { headers, text } = await answer;
      expect(headers['content-type']).toBe('application/json');
      expect(JSON.parse(text)).toEqual({
        result: { content: [{ type: 'text', text: 'json' }] },
        jsonrpc: '2.0',
        id: 5,
      });
    } finally {
      await transport.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
