import { deserializeMessage } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { type CallToolResult, Server, type ServerContext } from '@modelcontextprotocol/server';
import { serveToolCalls } from '@toolmesh/core';
import { afterEach, describe, expect, it } from 'vitest';
import { isPlainResponse, ServerLines } from '../src/upstream/server-lines.js';

type Answer = (name: string, context: ServerContext) => Promise<CallToolResult>;

/** A 2025 session whose plain calls go past the SDK, with which path answered each call. */
async function session(answer: Answer) {
  const server = new Server({ name: 't', version: '0' }, { capabilities: { tools: {} } });
  const paths: string[] = [];
  let initialized = false;
  server.oninitialized = () => {
    initialized = true;
  };
  const handler = (path: string) => (request: { params: { name: string } }, context: ServerContext) => {
    paths.push(path);
    return answer(request.params.name, context);
  };
  // The handler the SDK runs is told apart by its context, which only the SDK gives a log.
  serveToolCalls(
    server,
    (request, context) => handler('log' in context.mcpReq ? 'sdk' : 'direct')(request, context),
    { name: 't', version: '0' },
    { sessionOpen: () => initialized },
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'c', version: '0' });
  await client.connect(clientSide);
  return { client, paths, close: () => client.close() };
}

let opened: Awaited<ReturnType<typeof session>> | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

describe('plain tools/call requests of a 2025 session', () => {
  it('are answered past the SDK, the result as the handler gave it', async () => {
    opened = await session(async (name) => ({ ...text(name), structuredContent: { name } }));
    const result = await opened.client.callTool({ name: 'echo', arguments: { a: 1 } });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'echo' }],
      structuredContent: { name: 'echo' },
    });
    expect(opened.paths).toEqual(['direct']);
  });

  it('hold a result of other blocks to the result schema, as the SDK does', async () => {
    opened = await session(async (name) =>
      name === 'image'
        ? { content: [{ type: 'image', data: 'aGk=', mimeType: 'image/png' }] }
        : ({ content: [{ type: 'text' }] } as unknown as CallToolResult),
    );
    const image = await opened.client.callTool({ name: 'image' });
    expect(image.content).toEqual([{ type: 'image', data: 'aGk=', mimeType: 'image/png' }]);
    await expect(opened.client.callTool({ name: 'broken' })).rejects.toThrow(/Invalid tools\/call result/);
  });

  it('give a thrown protocol error its code and message', async () => {
    opened = await session(async () => {
      throw Object.assign(new Error('Unknown tool "nope"'), { code: -32602 });
    });
    await expect(opened.client.callTool({ name: 'nope' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool "nope"'),
    });
  });

  it('are aborted by the client cancelling them', async () => {
    let aborted: AbortSignal | undefined;
    opened = await session(
      (_name, context) =>
        new Promise((resolve) => {
          aborted = context.mcpReq.signal;
          context.mcpReq.signal.addEventListener('abort', () => resolve(text('late')));
        }),
    );
    const controller = new AbortController();
    const call = opened.client.callTool({ name: 'slow' }, undefined, { signal: controller.signal });
    while (!aborted) await new Promise((resolve) => setImmediate(resolve));
    controller.abort('stop');
    await expect(call).rejects.toThrow();
    while (!aborted.aborted) await new Promise((resolve) => setImmediate(resolve));
    expect(aborted.aborted).toBe(true);
  });

  it('go through the SDK when they carry more than a plain call', async () => {
    opened = await session(async (name) => text(name));
    await opened.client.callTool({ name: 'echo', arguments: { a: 1 }, _meta: { progressToken: 'p' } });
    await opened.client.request(
      {
        method: 'tools/call',
        params: { name: 'echo', _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } },
      },
      CallToolResultSchema,
    );
    expect(opened.paths).toEqual(['direct', 'sdk']);
  });
});

/** A result `_meta` naming the server that answered, with `fields` over a plain name and version. */
const serverInfo = (fields: Record<string, unknown>) => ({
  'io.modelcontextprotocol/serverInfo': { name: 'echo', version: '1', ...fields },
});

describe('a downstream server line', () => {
  it('is taken without the message schema only when it is a plain response', () => {
    const plain = [
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }] } },
      { jsonrpc: '2.0', id: 'x', result: { _meta: { 'toolmesh/note': 1 } } },
      { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'bad', data: { field: 'a' } } },
      {
        jsonrpc: '2.0',
        id: 3,
        result: { resultType: 'complete', content: [], _meta: serverInfo({ title: 'E' }) },
      },
    ];
    for (const message of plain) {
      expect(isPlainResponse(message), JSON.stringify(message)).toBe(true);
      expect(JSONRPCMessageSchema.safeParse(message).success, JSON.stringify(message)).toBe(true);
      // Taken as parsed, it is what the SDK's reading of the line would have given.
      expect(deserializeMessage(JSON.stringify(message))).toEqual(message);
    }
    const other = [
      { jsonrpc: '2.0', id: 1, result: { _meta: { progressToken: 1 } } },
      { jsonrpc: '2.0', id: 1, result: { _meta: serverInfo({ icons: [] }) } },
      { jsonrpc: '2.0', id: 1, result: { _meta: serverInfo({ vendor: 'x' }) } },
      { jsonrpc: '2.0', id: 1, result: { _meta: serverInfo({ version: 2 }) } },
      { jsonrpc: '2.0', id: 1, result: { _meta: { 'io.modelcontextprotocol/other': {} } } },
      { jsonrpc: '2.0', id: 1, result: [] },
      { jsonrpc: '2.0', id: 1.5, result: {} },
      { jsonrpc: '2.0', id: 1, result: {}, extra: 1 },
      { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'bad' } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
    ];
    for (const message of other) expect(isPlainResponse(message), JSON.stringify(message)).toBe(false);
  });

  it('is read whole across chunks; a line that is not JSON is skipped, one that is no message throws', () => {
    const lines = new ServerLines();
    lines.append(Buffer.from('{"jsonrpc":"2.0","id":1,"res'));
    expect(lines.readMessage()).toBeNull();
    lines.append(
      Buffer.from('ult":{}}\r\nnot json\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n'),
    );
    expect(lines.readMessage()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(lines.readMessage()).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(lines.readMessage()).toBeNull();
    lines.append(Buffer.from('{"jsonrpc":"2.0","id":1}\n'));
    expect(() => lines.readMessage()).toThrow();
  });
});
