import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { describe, expect, it } from 'vitest';
import { readJsonRpcLine } from '../src/jsonrpc-line.js';
import { isPlainToolCall, plainModernCallOf } from '../src/plain-tool-call.js';
import { requestParamsProblem } from '../src/request-params.js';

const call = (params: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params,
  ...extra,
});

/** Calls the plain check takes: each must also pass the schemas it stands in for. */
const PLAIN = [
  call({ name: 'echo' }),
  call({ name: 'echo', arguments: { text: 'hi', nested: { deep: [1, 2] } } }),
  { ...call({ name: 'fs__read_file', arguments: {} }), id: 'abc' },
  call({ name: 'echo', arguments: { text: 'hi' }, _meta: { progressToken: 3, 'toolmesh/agent': 'me' } }),
  call({ name: 'echo', _meta: { progressToken: 'token' } }),
];

/** Calls it leaves to the schemas: wrong, or of a form the protocol shapes further. */
const NOT_PLAIN = [
  call({ name: 3 }),
  call({ arguments: {} }),
  call({ name: 'echo', arguments: [] }),
  call({ name: 'echo', arguments: 'text' }),
  call({ name: 'echo', _meta: { progressToken: 1.5 } }),
  call({ name: 'echo', _meta: { progressToken: null } }),
  call({ name: 'echo', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }),
  call({ name: 'echo', task: { ttl: 1000 } }),
  call({ name: 'echo' }, { extra: true }),
  call({ name: 'echo' }, { id: 1.5 }),
  call({ name: 'echo' }, { id: null }),
  call({ name: 'echo' }, { jsonrpc: '1.0' }),
  call(null),
  call([{ name: 'echo' }]),
  { jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo' } },
  { ...call({ name: 'echo' }), method: 'tools/list' },
];

describe('a plain tools/call', () => {
  it('is taken only when the JSON-RPC and tools/call schemas would take it too', () => {
    for (const message of PLAIN) {
      expect(isPlainToolCall(message), JSON.stringify(message)).toBe(true);
      expect(JSONRPCMessageSchema.safeParse(message).success, JSON.stringify(message)).toBe(true);
      expect(requestParamsProblem(message), JSON.stringify(message)).toBeUndefined();
    }
  });

  it('leaves anything else to the schemas, whose answers still name what is wrong', () => {
    for (const message of NOT_PLAIN) expect(isPlainToolCall(message), JSON.stringify(message)).toBe(false);
    const read = readJsonRpcLine(JSON.stringify(call({ name: 'echo', arguments: [] })));
    expect(read).toMatchObject({ answer: { id: 7, error: { code: -32602 } } });
    expect((read as { answer: { error: { message: string } } }).answer.error.message).toContain('arguments');
  });

  it('reaches the server as the line said it', () => {
    const message = PLAIN[3];
    expect(readJsonRpcLine(JSON.stringify(message))).toEqual({ message });
  });
});

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
};

describe('a plain 2026-07-28 tools/call', () => {
  it('is the call with its envelope lifted out of `_meta`, as the SDK hands it on', () => {
    const message = call({ name: 'echo', arguments: { a: 1 }, _meta: { ...ENVELOPE, progressToken: 'p' } });
    expect(plainModernCallOf(message)).toEqual({
      request: call({ name: 'echo', arguments: { a: 1 }, _meta: { progressToken: 'p' } }),
      envelope: ENVELOPE,
    });
    expect(readJsonRpcLine(JSON.stringify(message))).toEqual({ message });
  });

  it('is not taken with an envelope the SDK refuses, another revision, or more than a plain call', () => {
    const refused = [
      call({
        name: 'echo',
        _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { elicitation: 5 } },
      }),
      call({ name: 'echo', _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } }),
      call({ name: 'echo', _meta: { ...ENVELOPE, 'io.modelcontextprotocol/related-task': { taskId: 't' } } }),
      call({ name: 'echo', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }),
      call({ name: 'echo', requestState: 'x', _meta: ENVELOPE }),
      call({ name: 'echo', arguments: [], _meta: ENVELOPE }),
      { ...call({ _meta: ENVELOPE }), method: 'tools/list' },
      call({ name: 'echo' }),
    ];
    for (const message of refused)
      expect(plainModernCallOf(message), JSON.stringify(message)).toBeUndefined();
  });
});
