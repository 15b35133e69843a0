import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MODERN_REVISION } from '@toolmesh/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { DirectCalls } from '../src/upstream/direct-calls.js';
import { withoutServerInfo } from '../src/upstream/without-server-info.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 'toolmesh', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

type Request = { id: string; method: string; params: Record<string, unknown> };

/**
 * DirectCalls on one end of a linked pair; the test is the server on the other, reading what
 * is sent and answering in raw JSON-RPC, as a server of either era may.
 */
async function line(modern: boolean) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const direct = new DirectCalls(clientSide);
  if (modern) direct.speakModern(ENVELOPE);
  const others: JSONRPCMessage[] = [];
  clientSide.onmessage = (message) => {
    if (!direct.took(message as never)) others.push(message);
  };
  const received: JSONRPCMessage[] = [];
  const waiting: Array<() => void> = [];
  serverSide.onmessage = (message) => {
    received.push(message);
    for (const wake of waiting.splice(0)) wake();
  };
  await clientSide.start();
  await serverSide.start();
  const nth = async (index: number): Promise<JSONRPCMessage> => {
    while (received.length <= index) await new Promise<void>((resolve) => waiting.push(resolve));
    return received[index] as JSONRPCMessage;
  };
  return {
    direct,
    others,
    received,
    nth,
    request: async (index: number) => (await nth(index)) as unknown as Request,
    answer: (id: string, result: unknown) => serverSide.send({ jsonrpc: '2.0', id, result } as never),
    error: (id: string, error: unknown) => serverSide.send({ jsonrpc: '2.0', id, error } as never),
    notify: (method: string, params: Record<string, unknown>) =>
      serverSide.send({ jsonrpc: '2.0', method, params } as never),
    close: () => clientSide.close(),
  };
}

let opened: Awaited<ReturnType<typeof line>> | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

const notContinued = () => Promise.reject(new Error('went on'));
const text = (value: string) => [{ type: 'text' as const, text: value }];

describe('a call to a 2026-07-28 server past the SDK', () => {
  it("carries the envelope, the call's own _meta winning, and takes a complete result without its resultType", async () => {
    opened = await line(true);
    const call = opened.direct.call('echo', { a: 1 }, { 'toolmesh/agent': 'me' }, {}, notContinued);
    const request = await opened.request(0);
    expect(request.method).toBe('tools/call');
    expect(request.params).toEqual({
      name: 'echo',
      arguments: { a: 1 },
      _meta: { ...ENVELOPE, 'toolmesh/agent': 'me' },
    });
    await opened.answer(request.id, { resultType: 'complete', content: text('hi'), _meta: { x: 1 } });
    expect(await call).toEqual({ content: text('hi'), _meta: { x: 1 } });
    expect(opened.others).toEqual([]);
  });

  it('hands an input_required answer, as it came, to go on with, without asking the server again', async () => {
    opened = await line(true);
    const before = Date.now();
    const handed: Array<{ answer: Record<string, unknown>; startedAt: number }> = [];
    const call = opened.direct.call('ask', undefined, undefined, {}, async (answer, startedAt) => {
      handed.push({ answer, startedAt });
      return { content: text('answered') };
    });
    const request = await opened.request(0);
    const asking = { resultType: 'input_required', inputRequests: { q: {} }, requestState: 's1' };
    await opened.answer(request.id, asking);
    expect(await call).toEqual({ content: text('answered') });
    expect(handed).toEqual([{ answer: asking, startedAt: expect.any(Number) }]);
    // Its deadline in all counts from the first request.
    expect(handed[0]?.startedAt).toBeGreaterThanOrEqual(before);
    expect(opened.received).toHaveLength(1);
  });

  it('fails, saying what the server should have said, when a result has no resultType, an unknown one, or is no object', async () => {
    opened = await line(true);
    const missing = opened.direct.call('a', undefined, undefined, {}, notContinued);
    const unknown = opened.direct.call('b', undefined, undefined, {}, notContinued);
    const scalar = opened.direct.call('c', undefined, undefined, {}, notContinued);
    await opened.answer((await opened.request(0)).id, { content: text('old style') });
    await opened.answer((await opened.request(1)).id, { resultType: 'later', content: [] });
    await opened.answer((await opened.request(2)).id, 'done');
    await expect(missing).rejects.toThrow(/with no resultType.*"complete" or "input_required"/);
    await expect(unknown).rejects.toThrow(/answered the call with resultType "later"/);
    await expect(scalar).rejects.toThrow(/a result that is not an object/);
  });

  it('gives a JSON-RPC error its code and data, and fails every waiting call when the line closes', async () => {
    opened = await line(true);
    const refused = opened.direct.call('a', undefined, undefined, {}, notContinued);
    const waiting = opened.direct.call('b', undefined, undefined, {}, notContinued);
    const request = await opened.request(0);
    await opened.error(request.id, { code: -32602, message: 'Unknown tool', data: { tool: 'a' } });
    await expect(refused).rejects.toMatchObject({ code: -32602, data: { tool: 'a' } });
    await opened.request(1);
    opened.direct.closed();
    await expect(waiting).rejects.toMatchObject({ code: -32000 });
  });

  it('asks for progress with its own token beside the envelope, and passes progress on', async () => {
    opened = await line(true);
    const progressed: unknown[] = [];
    const onprogress = (progress: unknown) => progressed.push(progress);
    const call = opened.direct.call('slow', undefined, undefined, { onprogress }, notContinued);
    const request = await opened.request(0);
    expect(request.params._meta).toEqual({ ...ENVELOPE, progressToken: request.id });
    await opened.notify('notifications/progress', { progressToken: request.id, progress: 1, total: 2 });
    await opened.answer(request.id, { resultType: 'complete', content: [] });
    await call;
    expect(progressed).toEqual([{ progress: 1, total: 2 }]);
  });

  it('tells the server its deadline passed, with the envelope', async () => {
    opened = await line(true);
    const call = opened.direct.call('slow', undefined, undefined, { timeout: 20 }, notContinued);
    const request = await opened.request(0);
    await expect(call).rejects.toMatchObject({ code: -32001, data: { timeout: 20 } });
    expect(await opened.nth(1)).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: request.id, _meta: ENVELOPE },
    });
  });

  it('tells the server of a cancellation with the envelope, and fails the call as timed out', async () => {
    opened = await line(true);
    const abort = new AbortController();
    const call = opened.direct.call('slow', undefined, undefined, { signal: abort.signal }, notContinued);
    const request = await opened.request(0);
    abort.abort('caller left');
    await expect(call).rejects.toMatchObject({ code: -32001 });
    expect(await opened.nth(1)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: request.id, reason: 'caller left', _meta: ENVELOPE },
    });
  });
});

describe('a call to a 2025 server past the SDK', () => {
  it('carries only its own _meta and takes a result as it came', async () => {
    opened = await line(false);
    const call = opened.direct.call('echo', undefined, { 'toolmesh/agent': 'me' }, {}, notContinued);
    const request = await opened.request(0);
    expect(request.params).toEqual({ name: 'echo', _meta: { 'toolmesh/agent': 'me' } });
    await opened.answer(request.id, { content: text('hi') });
    expect(await call).toEqual({ content: text('hi') });
  });

  it('fails, saying so, when its error answer is malformed', async () => {
    opened = await line(false);
    const call = opened.direct.call('echo', undefined, undefined, {}, notContinued);
    await opened.error((await opened.request(0)).id, null);
    await expect(call).rejects.toThrow(/malformed error/);
  });
});

describe("a downstream server's answer", () => {
  it('loses the identity of the server that stamped it, and nothing else', () => {
    const info = { 'io.modelcontextprotocol/serverInfo': { name: 'echo', version: '1' } };
    expect(withoutServerInfo({ content: [], _meta: info })).toEqual({ content: [] });
    expect(withoutServerInfo({ content: [], _meta: { ...info, other: 1 } })).toEqual({
      content: [],
      _meta: { other: 1 },
    });
    const plain = { contents: [], _meta: { other: 1 } };
    expect(withoutServerInfo(plain)).toBe(plain);
    expect(withoutServerInfo({ contents: [], _meta: 'odd' })).toEqual({ contents: [], _meta: 'odd' });
  });
});
