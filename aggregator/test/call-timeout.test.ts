import { resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, type Harness, startHarness, until } from './harness.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({ mcpServers: { slow: fixture('slow', { timeoutMs: 300 }) } });
});
afterAll(() => harness.close());

/** The seconds a timeout message says the call ran. */
function statedElapsed(message: string): number {
  return Number(/was cancelled after (\d+(?:\.\d)?) s/.exec(message)?.[1]);
}

describe("a call that outlives its server's timeout", () => {
  it('is cancelled, and the client is told how long it ran and the timeout', async () => {
    const { call } = await harness.connect();
    const result = await call('slow__hang');
    expect(result.isError).toBe(true);
    const message = resultText(result);
    expect(message).toMatch(
      /^slow__hang was cancelled after \d+(\.\d)? s without an answer \(its timeout is 0\.3 s\)\. Retry, or ask for less\.$/,
    );
    expect(statedElapsed(message)).toBeGreaterThanOrEqual(0.3);
  });

  it('with progress, is told that progress restarts the timeout up to four times it in all', async () => {
    const { client } = await harness.connect();
    let progress = 0;
    // 50 ms a step: about 50 s in all, far past 4 × 0.3 s, while never 0.3 s without progress.
    const result = await client.callTool({ name: 'slow__count_slowly', arguments: { n: 1000 } }, undefined, {
      onprogress: () => {
        progress++;
      },
    });
    expect(result.isError).toBe(true);
    const message = resultText(result as never);
    expect(message).toMatch(
      /^slow__count_slowly was cancelled after \d+(\.\d)? s without an answer \(its timeout is 0\.3 s, restarted by each progress notification up to 1\.2 s in all\)\. Retry, or ask for less\.$/,
    );
    expect(statedElapsed(message)).toBeGreaterThanOrEqual(0.3);
    expect(progress).toBeGreaterThan(0);
  });

  it('past its deadline in all, is cancelled at its server too, which stops counting', async () => {
    const { client } = await harness.connect();
    // A count of its own, told apart from the other tests' in the server's log.
    const result = await client.callTool({ name: 'slow__count_slowly', arguments: { n: 999 } }, undefined, {
      onprogress: () => undefined,
    });
    expect(result.isError).toBe(true);
    // Uncancelled, it would count on for about 50 s.
    await until(() => harness.logs.some((line) => line.includes('count_slowly to 999: cancelled')));
  });
});
