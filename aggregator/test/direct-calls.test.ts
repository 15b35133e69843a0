import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MODERN_REVISION } from '@toolmesh/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { DirectCalls } from '../src/upstream/direct-calls.js';

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
    close: () => clientSide.close(),
  };
}

let opened: Awaited<ReturnType<typeof line>> | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

const notResent = () => Promise.reject(new Error('resent'));
const text = (value: string) => [{ type: 'text' as const, text: value }];

describe('a call to a 2026-07-28 server past the SDK', () => {
  it("carries the envelope, the call's own _meta winning, and takes a complete result without its resultType", async () => {
    opened = await line(true);
    const call = opened.direct.call('echo', { a: 1 }, { 'toolmesh/agent': 'me' }, {}, notResent);
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

  it('hands an input_required answer to the SDK path, once, and gives its result', async () => {
    opened = await line(true);
    let resent = 0;
    const call = opened.direct.call('ask', undefined, undefined, {}, async () => {
      resent++;
      return { content: text('answered') };
    });
    const request = await opened.request(0);
    await opened.answer(request.id, { resultType: 'input_required', inputRequests: { q: {} } });
    expect(await call).toEqual({ content: text('answered') });
    expect(resent).toBe(1);
  });

  it('fails, saying what the server should have said, when an answer has no resultType or an unknown one', async () => {
    opened = await line(true);
    const missing = opened.direct.call('a', undefined, undefined, {}, notResent);
    const unknown = opened.direct.call('b', undefined, undefined, {}, notResent);
    await opened.answer((await opened.request(0)).id, { content: text('old style') });
    await opened.answer((await opened.request(1)).id, { resultType: 'later', content: [] });
    await expect(missing).rejects.toThrow(
      /answered the call with no resultType.*"complete" or "input_required"/,
    );
    await expect(unknown).rejects.toThrow(/answered the call with resultType "later"/);
  });

  it('tells the server of a cancellation with the envelope, and fails the call as timed out', async () => {
    opened = await line(true);
    const abort = new AbortController();
    const call = opened.direct.call('slow', undefined, undefined, { signal: abort.signal }, notResent);
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
    const call = opened.direct.call('echo', undefined, { 'toolmesh/agent': 'me' }, {}, notResent);
    const request = await opened.request(0);
    expect(request.params).toEqual({ name: 'echo', _meta: { 'toolmesh/agent': 'me' } });
    await opened.answer(request.id, { content: text('hi') });
    expect(await call).toEqual({ content: text('hi') });
  });
});
