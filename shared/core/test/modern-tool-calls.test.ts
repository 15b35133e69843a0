import { Server } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpFront, startHttpFront } from '../src/http-front.js';
import { exchangeEnded, IdleServers } from '../src/idle-servers.js';
import { createLogger } from '../src/logger.js';
import { serveToolCalls } from '../src/modern-tool-calls.js';
import { MODERN_REVISION } from '../src/testing.js';
import { toolCallCases } from './fixtures/tool-call-cases.mjs';

// A plain 2026-07-28 tools/call answered past the SDK must be answered exactly as the SDK
// answers it: one front serves the same handler through the SDK (/sdk) and past it (/mcp), and
// every request gets the same status, content type and message from both.

const quiet = createLogger({ level: 'error', sink: () => undefined });
const INFO = { name: 'probe', version: '1.2.3', title: 'Probe' };

/** Which way each call reached the handler. */
const ways: string[] = [];
/** The signal of the call that waits until its client goes away. */
let hung: AbortSignal | undefined;
const handle = toolCallCases({
  saw: (way: string) => ways.push(way),
  hung: (signal: AbortSignal) => {
    hung = signal;
  },
});

function server(past: boolean): Server {
  const made = new Server(INFO, { capabilities: { tools: {} } });
  if (past) serveToolCalls(made, handle, INFO);
  else made.setRequestHandler('tools/call', handle);
  return made;
}

let front: HttpFront;
beforeAll(async () => {
  front = await startHttpFront({
    createServer: () => server(true),
    endpoints: { '/sdk': () => server(false) },
    modernEra: true,
    host: '127.0.0.1',
    port: 0,
    log: quiet,
  });
});
afterAll(() => front.close());

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Sent {
  params: Record<string, unknown>;
  headers?: Record<string, string>;
}

const call = (name: string, more: Partial<Sent> = {}): Sent => ({
  params: { name, arguments: { a: 1 }, _meta: ENVELOPE },
  headers: { 'mcp-method': 'tools/call', 'mcp-name': name, ...more.headers },
  ...(more.params && { params: more.params }),
});

/** One request to `path`: its status, content type and the message answering it (the last one on a stream). */
async function ask(path: string, sent: Sent) {
  const response = await fetch(front.url.replace(/\/mcp$/, path), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN_REVISION,
      ...sent.headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: sent.params }),
  });
  const type = response.headers.get('content-type');
  const text = await response.text();
  const body = type?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)))
    : JSON.parse(text);
  return { status: response.status, type, session: response.headers.get('mcp-session-id'), body };
}

/** The answers of both paths, which must be the same; and which way the handler was reached past the SDK. */
async function both(sent: Sent) {
  ways.length = 0;
  const sdk = await ask('/sdk', sent);
  const sdkWays = [...ways];
  ways.length = 0;
  const past = await ask('/mcp', sent);
  expect(past).toEqual(sdk);
  expect(sdkWays.every((way) => way === 'sdk')).toBe(true);
  return { answer: past, ways: [...ways] };
}

describe('a plain 2026-07-28 tools/call answered past the SDK', () => {
  it('gets the result the SDK sends, stamped complete and with the server identity', async () => {
    for (const name of ['plain', 'structured', 'empty']) {
      const { answer, ways } = await both(call(name));
      expect(ways).toEqual(['direct']);
      expect(answer.status).toBe(200);
      expect(answer.body.result).toMatchObject({
        resultType: 'complete',
        _meta: { 'io.modelcontextprotocol/serverInfo': INFO },
      });
    }
  });

  it('gets the error the SDK sends for what the handler throws', async () => {
    for (const name of ['unknown', 'missing', 'crash']) {
      const { answer, ways } = await both(call(name));
      expect(ways).toEqual(['direct']);
      expect(answer.body.error).toBeDefined();
    }
    expect((await both(call('missing'))).answer.body.error.code).toBe(-32602);
  });

  it('hands the SDK what it must check, without running the call again', async () => {
    for (const name of ['image', 'broken', 'url', 'ask']) {
      const { ways } = await both(call(name));
      expect(ways).toEqual(['direct']);
    }
    const asked = await both({
      ...call('ask'),
      params: {
        name: 'ask',
        _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } },
      },
    });
    expect(asked.answer.body.result).toMatchObject({ resultType: 'input_required', requestState: 'sealed' });
    // Asked of a client that cannot show a form: the SDK's own refusal, HTTP 400.
    expect((await both(call('ask'))).answer.status).toBe(400);
  });

  it('streams notifications sent before the result, then the result, as the SDK does', async () => {
    for (const name of ['progress', 'progress-image']) {
      const { answer, ways } = await both({
        ...call(name),
        params: { name, _meta: { ...ENVELOPE, progressToken: 'p' } },
      });
      expect(ways).toEqual(['direct']);
      expect(answer.type).toBe('text/event-stream');
      expect(answer.body).toHaveLength(2);
    }
  });

  it('leaves requests that are not plain or disagree with their headers to the SDK, answered alike', async () => {
    const refused: Sent[] = [
      call('plain', { headers: { 'mcp-name': 'other' } }),
      call('plain', { headers: { 'mcp-name': '=?base64?cGxhaW4=?=' } }),
      { params: { name: 'plain', _meta: ENVELOPE }, headers: { 'mcp-name': 'plain' } },
      call('plain', { headers: { 'mcp-method': 'tools/list' } }),
      call('plain', { headers: { 'mcp-protocol-version': '2025-06-18' } }),
      call('plain', {
        params: {
          name: 'plain',
          _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { elicitation: 5 } },
        },
      }),
      call('plain', {
        params: {
          name: 'plain',
          _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' },
        },
      }),
      call('plain', { params: { name: 'plain', arguments: 5, _meta: ENVELOPE } }),
      call('plain', { params: { name: 'plain', requestState: 'x', _meta: ENVELOPE } }),
    ];
    for (const sent of refused) {
      const { answer } = await both(sent);
      expect(answer.session).toBeNull();
    }
    // The encoded name, sent through the SDK, is served there.
    expect((await both(call('plain', { headers: { 'mcp-name': '=?base64?cGxhaW4=?=' } }))).ways).toEqual([
      'sdk',
    ]);
  });
});

describe('a 2026-07-28 call answered past the SDK whose client goes away', () => {
  it('is aborted as the SDK aborts it, with its event stream left', async () => {
    const client = new AbortController();
    const sent = call('hang');
    const response = await fetch(front.url, {
      method: 'POST',
      signal: client.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN_REVISION,
        ...sent.headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'hang', _meta: { ...ENVELOPE, progressToken: 'p' } },
      }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    await response.body?.getReader().read();
    client.abort();
    while (!hung?.aborted) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(hung.reason).toMatchObject({ message: 'Connection closed' });
  });
});

describe('a pooled server whose call was answered past the SDK', () => {
  it('is idle again for the next request of its kind', () => {
    const idle = new IdleServers();
    let made = 0;
    const make = () => {
      made++;
      return server(true);
    };
    const first = idle.take('k', make);
    expect(idle.take('k', make)).not.toBe(first);
    exchangeEnded(first);
    expect(idle.take('k', make)).toBe(first);
    expect(made).toBe(2);
  });
});
