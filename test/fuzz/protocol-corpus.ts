/** One input of the protocol layer: raw bytes, and what the server must answer to them. */
export interface ProtocolCase {
  name: string;
  bytes: string | Buffer;
  /**
   * `id`: an answer to that id must come (a result or an error); `error`: an error with a null id
   * must come (the line could not be read as a request); `none`: nothing may come for it.
   */
  expect: { id: string | number } | 'error' | 'none';
}

/** The protocol era a connection is opened in: the 2025 handshake, or 2026-07-28 with no handshake. */
export type Era = 'legacy' | 'modern';

/** What every 2026-07-28 request carries in its `_meta` instead of an `initialize` handshake. */
export const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'toolmesh-fuzz', version: '0.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const line = (message: unknown) => `${JSON.stringify(message)}\n`;

/** A request's params in an era: a modern one gains the envelope when its params are an object (or absent). */
export function paramsIn(era: Era, params?: unknown): unknown {
  if (era === 'legacy') return params;
  if (params === undefined) return { _meta: MODERN_ENVELOPE };
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return params;
  const own = (params as { _meta?: unknown })._meta;
  return { ...params, _meta: { ...(typeof own === 'object' && own), ...MODERN_ENVELOPE } };
}

const requestIn = (era: Era) => (id: unknown, method: string, params?: unknown) => {
  const sent = paramsIn(era, params);
  return line({ jsonrpc: '2.0', id, method, ...(sent !== undefined && { params: sent }) });
};
const request = requestIn('legacy');
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

const INITIALIZE_PARAMS = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'toolmesh-fuzz', version: '0.0.0' },
};

/** What a client sends first: the fuzz cases come after it, so they reach an initialized server. */
export const INITIALIZE = request('init', 'initialize', INITIALIZE_PARAMS);
export const INITIALIZED = line({ jsonrpc: '2.0', method: 'notifications/initialized' });

/** What a 2026-07-28 client sends first: it asks what the server speaks, and the connection is modern from then on. */
export const DISCOVER = requestIn('modern')('discover', 'server/discover');

/** Requests a client may send before `initialize`; the server must answer them or refuse them, in JSON-RPC. */
export const BEFORE_INITIALIZE: ProtocolCase[] = [
  { name: 'ping before initialize', bytes: request('early-ping', 'ping'), expect: { id: 'early-ping' } },
  {
    name: 'tools/list before initialize',
    bytes: request('early-list', 'tools/list'),
    expect: { id: 'early-list' },
  },
];

/** The fixed corpus; `tool` is a real tool of the server, so calls reach its argument checks. */
export function protocolCorpus(tool: string, era: Era = 'legacy'): ProtocolCase[] {
  const request = requestIn(era);
  const call = (id: string, args: unknown) => request(id, 'tools/call', { name: tool, arguments: args });
  const modern: ProtocolCase[] =
    era === 'legacy'
      ? []
      : [
          {
            name: 'a 2026-07-28 request without its envelope',
            bytes: requestIn('legacy')('bare', 'tools/list'),
            expect: { id: 'bare' },
          },
          {
            name: 'an envelope naming a revision that does not exist',
            bytes: line({
              jsonrpc: '2.0',
              id: 'future',
              method: 'tools/list',
              params: {
                _meta: { ...MODERN_ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
              },
            }),
            expect: { id: 'future' },
          },
          {
            name: 'an envelope whose client info is a string',
            bytes: line({
              jsonrpc: '2.0',
              id: 'bad-info',
              method: 'tools/list',
              params: { _meta: { ...MODERN_ENVELOPE, 'io.modelcontextprotocol/clientInfo': 'me' } },
            }),
            expect: { id: 'bad-info' },
          },
          {
            name: 'a made-up requestState',
            bytes: request('bad-state', 'tools/call', {
              name: tool,
              arguments: {},
              requestState: 'forged',
              inputResponses: { x: { action: 'accept' } },
            }),
            expect: { id: 'bad-state' },
          },
          {
            name: 'a second server/discover',
            bytes: request('discover-again', 'server/discover'),
            expect: { id: 'discover-again' },
          },
          {
            name: 'subscriptions/listen with nothing to listen to',
            bytes: request('listen', 'subscriptions/listen', {}),
            expect: { id: 'listen' },
          },
        ];
  return [
    ...modern,
    { name: 'a line that is not JSON', bytes: 'hello, server\n', expect: 'error' },
    { name: 'JSON cut short', bytes: '{"jsonrpc":"2.0","id":1,"method":\n', expect: 'error' },
    { name: 'a bare number', bytes: '42\n', expect: 'error' },
    { name: 'a bare string', bytes: '"ping"\n', expect: 'error' },
    { name: 'null', bytes: 'null\n', expect: 'error' },
    { name: 'true', bytes: 'true\n', expect: 'error' },
    { name: 'an empty batch', bytes: '[]\n', expect: 'error' },
    { name: 'a batch of one ping', bytes: `[${request('in-batch', 'ping').trim()}]\n`, expect: 'error' },
    {
      name: 'no jsonrpc member',
      bytes: line({ id: 'no-version', method: 'ping' }),
      expect: { id: 'no-version' },
    },
    {
      name: 'jsonrpc 1.0',
      bytes: line({ jsonrpc: '1.0', id: 'old-version', method: 'ping' }),
      expect: { id: 'old-version' },
    },
    {
      name: 'jsonrpc as a number',
      bytes: '{"jsonrpc":2.0,"id":"num-version","method":"ping"}\n',
      expect: { id: 'num-version' },
    },
    { name: 'an object id', bytes: request({ nested: true }, 'ping'), expect: 'error' },
    { name: 'an array id', bytes: request([1], 'ping'), expect: 'error' },
    { name: 'a null id', bytes: request(null, 'ping'), expect: 'error' },
    { name: 'a fractional id', bytes: request(1.5, 'ping'), expect: 'error' },
    {
      name: 'an id past 2^53',
      bytes: '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}\n',
      expect: 'error',
    },
    { name: 'an id of 1e400', bytes: '{"jsonrpc":"2.0","id":1e400,"method":"ping"}\n', expect: 'error' },
    { name: 'a negative id', bytes: request(-7, 'ping'), expect: { id: -7 } },
    {
      name: 'a 100 kB string id',
      bytes: request('i'.repeat(100_000), 'ping'),
      expect: { id: 'i'.repeat(100_000) },
    },
    { name: 'an unknown method', bytes: request('unknown', 'tools/explode'), expect: { id: 'unknown' } },
    { name: 'an empty method', bytes: request('empty-method', ''), expect: { id: 'empty-method' } },
    { name: 'method __proto__', bytes: request('proto-method', '__proto__'), expect: { id: 'proto-method' } },
    {
      name: 'method constructor',
      bytes: request('ctor-method', 'constructor'),
      expect: { id: 'ctor-method' },
    },
    {
      name: 'method toString',
      bytes: request('tostring-method', 'toString'),
      expect: { id: 'tostring-method' },
    },
    {
      name: 'a method that is a number',
      bytes: line({ jsonrpc: '2.0', id: 'num-method', method: 5 }),
      expect: 'error',
    },
    {
      name: 'tools/call with string params',
      bytes: request('string-params', 'tools/call', 'x'),
      expect: { id: 'string-params' },
    },
    {
      name: 'tools/call with array params',
      bytes: request('array-params', 'tools/call', [tool]),
      expect: { id: 'array-params' },
    },
    {
      name: 'tools/call without a name',
      bytes: request('no-name', 'tools/call', {}),
      expect: { id: 'no-name' },
    },
    {
      name: 'tools/call with a numeric name',
      bytes: request('num-name', 'tools/call', { name: 7 }),
      expect: { id: 'num-name' },
    },
    {
      name: 'tools/call of an unknown tool',
      bytes: request('unknown-tool', 'tools/call', { name: 'no_such_tool', arguments: {} }),
      expect: { id: 'unknown-tool' },
    },
    {
      name: 'tools/call with array arguments',
      bytes: call('array-args', [1, 2]),
      expect: { id: 'array-args' },
    },
    {
      name: 'tools/call with string arguments',
      bytes: call('string-args', 'x'),
      expect: { id: 'string-args' },
    },
    {
      name: 'tools/call with __proto__ and constructor arguments',
      bytes: `{"jsonrpc":"2.0","id":"proto-args","method":"tools/call","params":{"name":${JSON.stringify(tool)},"arguments":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}}}\n`,
      expect: { id: 'proto-args' },
    },
    {
      name: 'a tool named __proto__',
      bytes: request('proto-tool', 'tools/call', { name: '__proto__', arguments: {} }),
      expect: { id: 'proto-tool' },
    },
    {
      name: '__proto__ in params',
      bytes:
        '{"jsonrpc":"2.0","id":"proto-params","method":"tools/list","params":{"__proto__":{"cursor":1}}}\n',
      expect: { id: 'proto-params' },
    },
    {
      name: 'tools/list with an object cursor',
      bytes: request('object-cursor', 'tools/list', { cursor: {} }),
      expect: { id: 'object-cursor' },
    },
    {
      name: 'tools/list with a made-up cursor',
      bytes: request('bad-cursor', 'tools/list', { cursor: 'zz' }),
      expect: { id: 'bad-cursor' },
    },
    {
      name: 'logging/setLevel to a level that does not exist',
      bytes: request('bad-level', 'logging/setLevel', { level: 'loud' }),
      expect: { id: 'bad-level' },
    },
    {
      name: 'resources/read of /etc/passwd',
      bytes: request('read-passwd', 'resources/read', { uri: 'file:///etc/passwd' }),
      expect: { id: 'read-passwd' },
    },
    {
      name: 'completion/complete with no params',
      bytes: request('complete', 'completion/complete', {}),
      expect: { id: 'complete' },
    },
    {
      name: 'prompts/get of nothing',
      bytes: request('prompt', 'prompts/get', { name: 'nothing' }),
      expect: { id: 'prompt' },
    },
    {
      name: 'an object progress token',
      bytes: request('object-token', 'tools/list', { _meta: { progressToken: { a: 1 } } }),
      expect: { id: 'object-token' },
    },
    { name: 'a top-level array nested 10,000 deep', bytes: `${nested(10_000)}\n`, expect: 'error' },
    {
      name: 'params nested 10,000 deep',
      bytes: `{"jsonrpc":"2.0","id":"deep-params","method":"ping","params":{"_meta":{"deep":${nested(10_000)}}}}\n`,
      expect: { id: 'deep-params' },
    },
    {
      name: 'arguments nested 10,000 deep',
      bytes: `{"jsonrpc":"2.0","id":"deep-args","method":"tools/call","params":{"name":${JSON.stringify(tool)},"arguments":{"deep":${nested(10_000)}}}}\n`,
      expect: { id: 'deep-args' },
    },
    {
      name: 'a 5 MB argument',
      bytes: call('five-mb', { path: 'x'.repeat(5_000_000), query: 'y'.repeat(100) }),
      expect: { id: 'five-mb' },
    },
    { name: 'a 5 MB line that is not JSON', bytes: `${'z'.repeat(5_000_000)}\n`, expect: 'error' },
    {
      name: 'invalid UTF-8 inside a string',
      bytes: Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":"bad-utf8","method":"ping","params":{"_meta":{"x":"'),
        Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
        Buffer.from('"}}}\n'),
      ]),
      expect: { id: 'bad-utf8' },
    },
    { name: 'invalid UTF-8 alone', bytes: Buffer.from([0xc0, 0xaf, 0xff, 0x0a]), expect: 'error' },
    { name: 'a NUL byte line', bytes: '\u0000\n', expect: 'error' },
    {
      name: 'a second initialize',
      bytes: request('init-again', 'initialize', INITIALIZE_PARAMS),
      expect: { id: 'init-again' },
    },
    {
      name: 'initialize with no params',
      bytes: request('init-bare', 'initialize'),
      expect: { id: 'init-bare' },
    },
    {
      name: 'a notification with an id',
      bytes: request('notify-id', 'notifications/initialized'),
      expect: { id: 'notify-id' },
    },
    {
      name: 'an unknown notification',
      bytes: line({ jsonrpc: '2.0', method: 'notifications/whatever' }),
      expect: 'none',
    },
    {
      name: 'a cancellation of nothing',
      bytes: line({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: { odd: true } },
      }),
      expect: 'none',
    },
    {
      name: 'a response to nothing',
      bytes: line({ jsonrpc: '2.0', id: 'never-asked', result: {} }),
      expect: 'none',
    },
    {
      name: 'an error response to nothing',
      bytes: line({ jsonrpc: '2.0', id: 'never-asked-2', error: { code: 1, message: 'x' } }),
      expect: 'none',
    },
    {
      name: 'a malformed response',
      bytes: line({ jsonrpc: '2.0', id: 'never-asked-3', result: 'not an object' }),
      expect: 'none',
    },
    {
      name: 'blank lines and CRLF',
      bytes: `\n\r\n   \n${request('crlf', 'ping').trim()}\r\n`,
      expect: { id: 'crlf' },
    },
  ];
}
