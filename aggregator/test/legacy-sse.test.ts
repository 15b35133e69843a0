import type { ChildProcess } from 'node:child_process';
import { resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, serveFixtureOverHttp, startHarness } from './harness.js';

let remote: ChildProcess | undefined;
let harness: Harness | undefined;

beforeAll(async () => {
  const served = await serveFixtureOverHttp('legacy', '--sse');
  remote = served.child;
  harness = await startHarness({ mcpServers: { legacy: { url: served.url } } });
});
afterAll(async () => {
  await harness?.close();
  remote?.kill('SIGKILL');
});

describe('a url server that speaks only legacy HTTP+SSE', () => {
  it('is reached by falling back from Streamable HTTP, and its tools are listed and called', async () => {
    expect(harness?.aggregator.upstreams.get('legacy')?.state).toBe('ready');
    const connected = await (harness as Harness).connect();
    const names = (await connected.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['legacy__echo', 'legacy__count_slowly']));
    expect(resultText(await connected.call('legacy__echo', { text: 'over sse' }))).toBe('legacy: over sse');
  });
});
