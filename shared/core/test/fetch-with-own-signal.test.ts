import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchWithOwnSignal } from '../src/fetch-with-own-signal.js';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/hang') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: first\n\n');
      return; // never ends, as an SSE stream does not
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('fetchWithOwnSignal', () => {
  it('leaves no listener on the shared signal once each response is read, however many requests', async () => {
    const fetch = fetchWithOwnSignal();
    const shared = new AbortController();
    for (let request = 0; request < 2000; request++) {
      const response = await fetch(`${base}/ok`, { signal: shared.signal });
      expect(await response.json()).toEqual({ ok: true });
    }
    expect(listeners(shared.signal)).toBe(0);
  });

  it('holds one listener per request in flight, and aborting the shared signal stops its body', async () => {
    const fetch = fetchWithOwnSignal();
    const shared = new AbortController();
    const response = await fetch(`${base}/hang`, { signal: shared.signal });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    expect(listeners(shared.signal)).toBe(1);
    shared.abort();
    await expect(reader.read()).rejects.toThrow();
    expect(listeners(shared.signal)).toBe(0);
  });

  it('releases the listener when the reader cancels the body', async () => {
    const fetch = fetchWithOwnSignal();
    const shared = new AbortController();
    const response = await fetch(`${base}/hang`, { signal: shared.signal });
    await response.body?.cancel();
    expect(listeners(shared.signal)).toBe(0);
  });
});
