import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALL_TAG_HEADER, CALL_TAG_META } from '../src/upstream/call-tag.js';
import { callTaggingFetch } from '../src/upstream/call-tagging-fetch.js';

// A call's POST response stream as a 2025 server writes it, cut into pieces anywhere (inside a
// line, inside a multi-byte character): the server's request on it comes out tagged with the
// call, everything else byte for byte as it was sent, and the tag header never reaches the server.

const progress = {
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 1, progress: 1 },
};
const question = {
  jsonrpc: '2.0',
  id: 7,
  method: 'elicitation/create',
  params: { message: 'Sag “grüß” zurück' },
};
const result = { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'a "method" named ✓' }] } };
const STREAM = [progress, question, result]
  .map((message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`)
  .join('');

let server: Server;
let url: string;
const headersSeen: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    headersSeen.push(...Object.keys(request.headers));
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const bytes = Buffer.from(STREAM);
    // Pieces of 5 bytes, each flushed on its own, cut lines and characters anywhere.
    let at = 0;
    const next = () => {
      if (at >= bytes.length) return response.end();
      response.write(bytes.subarray(at, at + 5), next);
      at += 5;
    };
    next();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const messagesOf = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)));

describe("the fetch of toolmesh's Streamable HTTP upstream client", () => {
  it("tags the server's request on a call's response stream, and passes the rest as it came", async () => {
    const headers = new Headers({ 'content-type': 'application/json', [CALL_TAG_HEADER]: 'call-1' });
    const response = await callTaggingFetch(fetch)(url, { method: 'POST', headers, body: '{}' });
    const [sentProgress, sentQuestion, sentResult] = messagesOf(await response.text());
    expect(sentProgress).toEqual(progress);
    expect(sentQuestion).toEqual({
      ...question,
      params: { ...question.params, _meta: { [CALL_TAG_META]: 'call-1' } },
    });
    expect(sentResult).toEqual(result);
    expect(headersSeen).not.toContain(CALL_TAG_HEADER);
  });

  it('leaves a POST that carries no call untouched', async () => {
    const response = await callTaggingFetch(fetch)(url, { method: 'POST', body: '{}' });
    expect(await response.text()).toBe(STREAM);
  });
});
