import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpFront, startHttpFront } from '../src/http-front.js';
import { createLogger } from '../src/logger.js';
import { connectHttpClient } from '../src/testing.js';
import { createToolServer } from '../src/tool-server.js';
import { echoTool } from './echo-tool.js';

const quiet = createLogger({ level: 'error', sink: () => undefined });
let front: HttpFront;

beforeAll(async () => {
  front = await startHttpFront({
    createServer: () =>
      createToolServer({ name: 'echo', version: '1', tools: [echoTool], engine: undefined, log: quiet }),
    host: '127.0.0.1',
    port: 0,
    log: quiet,
  });
});
afterAll(() => front.close());

/**
 * The signal an SDK Streamable HTTP transport keeps for the whole connection (its close aborts
 * it). The SDKs do not expose it; both name it `_abortController`.
 */
function connectionSignal(client: { transport?: unknown }): AbortSignal {
  const transport = client.transport as { _abortController?: AbortController } | undefined;
  const signal = transport?._abortController?.signal;
  if (!signal) throw new Error('the SDK transport no longer keeps its signal in _abortController');
  return signal;
}

describe('the HTTP clients of tests and benchmarks', () => {
  // Node's fetch left an abort listener per request on the connection's signal until garbage
  // collection: a benchmark's thousands of calls printed MaxListenersExceededWarning per call.
  it('calls one after another leave no abort listener behind on the connection', async () => {
    const connected = await connectHttpClient(front.url);
    try {
      const signal = connectionSignal(connected.client);
      let most = 0;
      for (let call = 0; call < 300; call++) {
        expect((await connected.call('echo', { text: `call ${call}` })).structuredContent).toEqual({
          text: `call ${call}`,
        });
        most = Math.max(most, getEventListeners(signal, 'abort').length);
      }
      // The call just answered may still be reading the end of its response.
      expect(most).toBeLessThanOrEqual(2);
    } finally {
      await connected.close();
    }
  });
});
