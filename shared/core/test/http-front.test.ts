import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpFront, ListenError, SessionRefusal, startHttpFront } from '../src/http-front.js';
import { createLogger } from '../src/logger.js';
import { connectHttpClient, connectModernHttpClient, MODERN_REVISION } from '../src/testing.js';
import { createToolServer } from '../src/tool-server.js';
import { echoTool as echo } from './echo-tool.js';
import { rawPost } from './raw-post.js';

const quiet = createLogger({ level: 'error', sink: () => undefined });
let front: HttpFront;

beforeAll(async () => {
  front = await startHttpFront({
    createServer: () =>
      createToolServer({ name: 'echo', version: '1', tools: [echo], engine: undefined, log: quiet }),
    host: '127.0.0.1',
    port: 0,
    log: quiet,
  });
});
afterAll(() => front.close());

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

function post(headers: Record<string, string>, body: unknown = initialize) {
  return fetch(front.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

describe('HTTP front', () => {
  it('serves Streamable HTTP sessions on /mcp', async () => {
    const { call, close } = await connectHttpClient(front.url);
    expect((await call('echo', { text: 'hi' })).structuredContent).toEqual({ text: 'hi' });
    expect(front.sessionCount()).toBeGreaterThanOrEqual(1);
    await close();
  });

  it('serves the legacy HTTP+SSE transport on /sse', async () => {
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new SSEClientTransport(new URL(front.sseUrl)));
    expect((await client.callTool({ name: 'echo', arguments: { text: 'old' } })).structuredContent).toEqual({
      text: 'old',
    });
    await client.close();
  });

  it('answers params that do not fit their method with InvalidParams naming the field, on /mcp and /sse', async () => {
    const streamable = await connectHttpClient(front.url);
    const legacy = new Client({ name: 't', version: '1' });
    await legacy.connect(new SSEClientTransport(new URL(front.sseUrl)));
    for (const client of [streamable.client, legacy]) {
      const refused = await client
        .request({ method: 'tools/call', params: { name: 7 } } as never, CallToolResultSchema)
        .catch((error: McpError) => error);
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).code).toBe(ErrorCode.InvalidParams);
      expect((refused as McpError).message).toMatch(
        /Invalid params for tools\/call: `params\.name`: .*string/,
      );
      expect(
        (await client.callTool({ name: 'echo', arguments: { text: 'after' } })).structuredContent,
      ).toEqual({
        text: 'after',
      });
    }
    await streamable.close();
    await legacy.close();
  });

  it('refuses a foreign Origin and a foreign Host (DNS rebinding)', async () => {
    const origin = await post({ origin: 'https://evil.example' });
    expect(origin.status).toBe(403);
    expect(JSON.stringify(await origin.json())).toMatch(/Origin https:\/\/evil.example is not allowed/);
    // fetch may not set Host, so this one goes through node:http.
    const hostStatus = await new Promise<number>((resolve, reject) => {
      const request = http.request(front.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          host: 'evil.example',
        },
      });
      request.once('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.once('error', reject);
      request.end(JSON.stringify(initialize));
    });
    expect(hostStatus).toBe(403);
    expect((await post({ origin: 'http://localhost:5173' })).status).toBe(200);
  });

  it('closes the server of an initialize it refused, so nothing is left open', async () => {
    let open = 0;
    const counting = await startHttpFront({
      createServer: () => {
        const server = createToolServer({
          name: 'echo',
          version: '1',
          tools: [echo],
          engine: undefined,
          log: quiet,
        });
        open++;
        server.onclose = () => {
          open--;
        };
        return server;
      },
      host: '127.0.0.1',
      port: 0,
      log: quiet,
    });
    const refused = await fetch(counting.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/plain' },
      body: JSON.stringify(initialize),
    });
    expect(refused.status).toBe(406);
    expect(open).toBe(0);
    await counting.close();
  });

  it('reads JSON bodies of every content type it takes alike, and answers one that is not JSON with a parse error', async () => {
    const fetchPost = (contentType: string, body: string) =>
      fetch(front.url, {
        method: 'POST',
        headers: { 'content-type': contentType, accept: 'application/json, text/event-stream' },
        body,
      });
    // The plain type is read by the front itself, a named charset by express.json: both serve.
    for (const type of ['application/json', 'application/json; charset=utf-8']) {
      const opened = await fetchPost(type, JSON.stringify(initialize));
      expect(opened.status).toBe(200);
      expect(await opened.text()).toContain('"serverInfo"');
      // A byte order mark is passed over.
      expect((await fetchPost(type, `\ufeff${JSON.stringify(initialize)}`)).status).toBe(200);
      // Neither a broken body nor one that is no object or array reaches MCP.
      for (const body of ['{"jsonrpc": "2.0", "id": 1, "method": ', ' 5', '"{}"', 'null']) {
        const garbled = await fetchPost(type, body);
        expect(garbled.status).toBe(400);
        const { error } = (await garbled.json()) as { error: { code: number; message: string } };
        expect(error.code).toBe(-32700);
        expect(error.message).toContain('Parse error: the body is not valid JSON');
      }
    }
  });

  it('answers requests without a session, or with an unknown one, with a clear 4xx', async () => {
    const noSession = await post({}, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(noSession.status).toBe(400);
    const unknown = await post({ 'mcp-session-id': 'nope' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(unknown.status).toBe(404);
  });
});

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

describe(`HTTP front, ${MODERN_REVISION} requests`, () => {
  let dual: HttpFront;
  let made = 0;
  beforeAll(async () => {
    dual = await startHttpFront({
      createServer: () => {
        made++;
        return createToolServer({ name: 'echo', version: '1', tools: [echo], engine: undefined, log: quiet });
      },
      modernEra: true,
      host: '127.0.0.1',
      port: 0,
      log: quiet,
    });
  });
  afterAll(() => dual.close());

  const modernPost = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(dual.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN_REVISION,
        ...headers,
      },
      body: JSON.stringify(body),
    });

  it('are each served by a server of their own, with no session, beside 2025 sessions', async () => {
    const legacy = await connectHttpClient(dual.url);
    const modern = await connectModernHttpClient(dual.url);
    const before = made;
    expect((await modern.call('echo', { text: 'new' })).structuredContent).toEqual({ text: 'new' });
    expect((await legacy.call('echo', { text: 'old' })).structuredContent).toEqual({ text: 'old' });
    expect(made).toBe(before + 1);
    expect(dual.sessionCount()).toBe(1);
    const answer = await modernPost(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } },
      { 'mcp-method': 'tools/list' },
    );
    expect(answer.headers.get('mcp-session-id')).toBeNull();
    expect(await answer.json()).toMatchObject({ result: { ttlMs: 300_000, cacheScope: 'public' } });
    await modern.close();
    await legacy.close();
  });

  it('pass the same Origin and Host checks as 2025 traffic', async () => {
    const refused = await modernPost(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } },
      { 'mcp-method': 'tools/list', origin: 'https://evil.example' },
    );
    expect(refused.status).toBe(403);
    expect(JSON.stringify(await refused.json())).toMatch(/Origin https:\/\/evil.example is not allowed/);
  });

  it('answer params that do not fit their method with InvalidParams naming the field', async () => {
    const refused = await modernPost(
      { jsonrpc: '2.0', id: 'bad', method: 'tools/call', params: { name: 7, _meta: ENVELOPE } },
      { 'mcp-method': 'tools/call' },
    );
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: 'bad',
      error: {
        code: ErrorCode.InvalidParams,
        message: expect.stringMatching(/Invalid params for tools\/call: `params\.name`: .*string/),
      },
    });
  });
});

describe('HTTP front, reaching a client outside its requests', () => {
  it('says when a client can be reached: on /mcp once it opens its event stream, on /sse at once', async () => {
    // The server asks for roots as soon as the front says the client can be reached: a request
    // outside the client's own requests, which arrives only over an open stream.
    const rootsSeen = new Map<string, unknown>();
    const started = await startHttpFront({
      createServer: () =>
        createToolServer({ name: 'echo', version: '1', tools: [echo], engine: undefined, log: quiet }),
      onEventStream: (server) => {
        const ask = () =>
          void server.listRoots().then(({ roots }) => {
            rootsSeen.set(server.getClientVersion()?.name ?? '', roots);
          });
        // On /sse the stream opens before the client has initialized.
        if (server.getClientVersion()) ask();
        else server.oninitialized = ask;
      },
      host: '127.0.0.1',
      port: 0,
      log: quiet,
    });
    const clients: Client[] = [];
    const answered = (name: string) =>
      new Promise<void>((resolve) => {
        const client = new Client({ name, version: '1' }, { capabilities: { roots: {} } });
        client.setRequestHandler(ListRootsRequestSchema, () => {
          resolve();
          return { roots: [{ uri: `file:///${name}` }] };
        });
        clients.push(client);
      });
    try {
      const streamable = answered('streamable');
      await clients[0]!.connect(new StreamableHTTPClientTransport(new URL(started.url)));
      const legacy = answered('legacy');
      await clients[1]!.connect(new SSEClientTransport(new URL(started.sseUrl)));
      await Promise.all([streamable, legacy]);
      await expect.poll(() => rootsSeen.size).toBe(2);
      expect(rootsSeen.get('streamable')).toEqual([{ uri: 'file:///streamable' }]);
      expect(rootsSeen.get('legacy')).toEqual([{ uri: 'file:///legacy' }]);
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await started.close();
    }
  });
});

/** An HTTP/1.0 POST with no Host at all (node's server asks one of HTTP/1.1 requests only); what came back. */
function postWithoutHost(url: string, headers: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () =>
      socket.end(
        `POST /mcp HTTP/1.0\r\n${headers}content-type: application/json\r\ncontent-length: 2\r\n\r\n{}`,
      ),
    );
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    socket.once('end', () => resolve(text));
    socket.once('error', reject);
  });
}

describe('HTTP front, before its routes', () => {
  let early: HttpFront;
  let readAhead = 0;
  beforeAll(async () => {
    early = await startHttpFront({
      createServer: () =>
        createToolServer({ name: 'echo', version: '1', tools: [echo], engine: undefined, log: quiet }),
      // As a fleet passes a request on before routing it: answered here, or handed on with its body read.
      beforeRoutes: (req, res, next) => {
        if (req.headers['x-answer'] === 'early') return void res.end('answered early');
        if (req.headers['x-answer'] !== 'read-ahead') return next();
        readAhead++;
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.once('end', () => next(Buffer.concat(chunks)));
      },
      host: '127.0.0.1',
      port: 0,
      log: quiet,
    });
  });
  afterAll(() => early.close());

  it('sees only what the Host and Origin checks let through', async () => {
    // A request with no Host, the first to come (no Host has passed yet), is refused.
    expect(await postWithoutHost(early.url, 'x-answer: early\r\n')).toMatch(
      /^HTTP\/1\.1 403 [\s\S]*Missing Host header/,
    );
    const answered = await rawPost(early.url, { 'x-answer': 'early' }, '{}');
    expect(answered).toMatchObject({ status: 200, text: 'answered early' });
    for (const refused of [
      await rawPost(early.url, { 'x-answer': 'early', origin: 'https://evil.example' }, '{}'),
      await rawPost(early.url, { 'x-answer': 'early', host: 'evil.example' }, '{}'),
    ]) {
      expect(refused.status).toBe(403);
      expect(refused.text).not.toContain('answered early');
    }
  });

  it('hands the app a body it read, parsed as any; one that is not JSON is answered as a parse error', async () => {
    const served = await rawPost(early.url, { 'x-answer': 'read-ahead' }, JSON.stringify(initialize));
    expect(served.status).toBe(200);
    expect(served.text).toContain('"serverInfo"');
    const garbled = await rawPost(early.url, { 'x-answer': 'read-ahead' }, '{"jsonrpc":');
    expect(garbled.status).toBe(400);
    expect(garbled.text).toContain('Parse error: the body is not valid JSON');
    expect(readAhead).toBe(2);
  });
});

describe('HTTP front, the POST of an endpoint of a fixed path', () => {
  const named = (name: string) => () =>
    createToolServer({ name, version: '1', tools: [echo], engine: undefined, log: quiet });
  const serverName = async (url: string) => {
    const opened = await rawPost(url, {}, JSON.stringify(initialize));
    return /"serverInfo":\{"name":"([^"]+)"/.exec(opened.text)?.[1] ?? `${opened.status} ${opened.text}`;
  };

  it('passes the Host and Origin checks, admit and authentication, in their order, and their refusals', async () => {
    const seen: string[] = [];
    const started = await startHttpFront({
      createServer: named('echo'),
      admit: (req, res, next) => {
        seen.push('admit');
        if (req.headers['x-refuse'] === 'admit') return void res.status(429).json({ refused: 'admit' });
        next();
      },
      authenticate: (req) => {
        seen.push('authenticate');
        if (req.headers['x-refuse'] === 'authenticate') throw new SessionRefusal(401, 'no token');
        return { identity: 'someone' };
      },
      host: '127.0.0.1',
      port: 0,
      log: quiet,
    });
    try {
      expect(await serverName(started.url)).toBe('echo');
      expect(seen).toEqual(['admit', 'authenticate']);
      const admitted = await rawPost(started.url, { 'x-refuse': 'admit' }, JSON.stringify(initialize));
      expect(admitted).toMatchObject({ status: 429, text: '{"refused":"admit"}' });
      const unknown = await rawPost(started.url, { 'x-refuse': 'authenticate' }, JSON.stringify(initialize));
      expect(unknown.status).toBe(401);
      expect(unknown.text).toContain('no token');
      const foreign = await rawPost(
        started.url,
        { origin: 'https://evil.example' },
        JSON.stringify(initialize),
      );
      expect(foreign.status).toBe(403);
      expect(seen).toEqual(['admit', 'authenticate', 'admit', 'admit', 'authenticate']);
    } finally {
      await started.close();
    }
  });

  it('has an endpoint’s failure answered by the app’s last error handler, as from a route', async () => {
    const started = await startHttpFront({
      // An error that carries a client's status, thrown by the endpoint rather than the body reader.
      createServer: () => {
        throw Object.assign(new Error('the factory broke'), { status: 418 });
      },
      host: '127.0.0.1',
      port: 0,
      log: quiet,
    });
    try {
      const failed = await rawPost(started.url, {}, JSON.stringify(initialize));
      expect(failed.status).toBe(500);
      expect(failed.text).toContain('Internal error: the factory broke');
    } finally {
      await started.close();
    }
  });

  it('is answered by what express would answer it with: a public route first, an endpoint added before', async () => {
    let passed = 0;
    const started = await startHttpFront({
      createServer: named('echo'),
      endpoints: {
        '/mcp/open': named('open'),
        '/mcp/:mode': (req) => named(`by-mode ${req.params.mode}`)(),
        '/mcp/all': named('all'),
      },
      publicRoutes: (app) => {
        app.post('/mcp/open', (_req, res) => void res.json({ answered: 'public' }));
      },
      host: '127.0.0.1',
      port: 0,
      log: quiet,
    });
    const everyPath = await startHttpFront({
      createServer: named('echo'),
      publicRoutes: (app) => {
        app.use((_req, _res, next) => {
          passed++;
          next();
        });
      },
      host: '127.0.0.1',
      port: 0,
      log: quiet,
    });
    try {
      const base = started.url.replace(/\/mcp$/, '');
      expect(await serverName(started.url)).toBe('echo');
      expect(await serverName(`${base}/mcp/all`)).toBe('by-mode all');
      expect(await serverName(`${base}/mcp/:mode`)).toBe('by-mode :mode');
      expect((await rawPost(`${base}/mcp/open`, {}, '{}')).text).toBe('{"answered":"public"}');
      expect(await serverName(everyPath.url)).toBe('echo');
      expect(passed).toBe(1);
    } finally {
      await Promise.all([started.close(), everyPath.close()]);
    }
  });
});

describe('HTTP front, where it cannot listen', () => {
  it('says which address is taken and what to pass instead when another process holds the port', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const started = startHttpFront({
        createServer: () =>
          createToolServer({ name: 'echo', version: '1', tools: [echo], engine: undefined, log: quiet }),
        host: '127.0.0.1',
        port,
        log: quiet,
      });
      await expect(started).rejects.toBeInstanceOf(ListenError);
      await expect(started).rejects.toThrow(
        `127.0.0.1:${port} is already in use by another process: pass --port with another number, or --port 0 for a free one`,
      );
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('says when the host is not an address of this machine', async () => {
    const started = startHttpFront({ host: '192.0.2.1', port: 0, log: quiet });
    await expect(started).rejects.toThrow(
      /192\.0\.2\.1 is not an address of this machine; pass --host 127\.0\.0\.1/,
    );
  });
});
