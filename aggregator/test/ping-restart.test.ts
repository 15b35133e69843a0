import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { resultText } from '@toolmesh/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE_SERVER, fixture, type Harness, processesTagged, startHarness, until } from './harness.js';
import { ManualClock } from './manual-clock.js';

const TAG = `toolmesh-ping-test-${process.pid}`;
let harness: Harness | undefined;
const paused: number[] = [];

afterAll(async () => {
  // A stopped process ignores everything but SIGKILL until it is continued.
  for (const pid of paused) {
    try {
      process.kill(pid, 'SIGCONT');
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await harness?.close();
  await until(() => processesTagged(TAG).length === 0);
});

describe('a server that stops answering', () => {
  it('is found by ping and restarted; meanwhile its tools say so and clients hear list_changed', async () => {
    const clock = new ManualClock();
    harness = await startHarness(
      { mcpServers: { frozen: fixture('frozen', { args: [FIXTURE_SERVER, TAG] }) } },
      { pingIntervalMs: 30_000, pingTimeoutMs: 300, clock },
    );
    const upstream = harness.aggregator.upstreams.get('frozen');
    const connected = await harness.connect();
    let changes = 0;
    connected.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changes++;
    });
    const [pid, ...others] = processesTagged(TAG);
    expect(pid).toBeDefined();
    expect(others).toEqual([]);
    process.kill(pid as number, 'SIGSTOP');
    paused.push(pid as number);

    expect(clock.delays()).toEqual([30_000]);
    clock.advance(30_000);
    await until(() => upstream?.state === 'restarting');
    expect(upstream?.lastError).toMatch(/^ping failed: .*timed out/);

    const meanwhile = await connected.call('frozen__echo', { text: 'x' });
    expect(meanwhile.isError).toBe(true);
    expect(resultText(meanwhile)).toMatch(/server frozen is restarting, retry in 1 s/);
    const found = (await connected.call('search_tool_bm25', { query: 'frozen echo' })).structuredContent as {
      results: { name: string; callable: boolean; reason?: string }[];
    };
    expect(found.results.find((hit) => hit.name === 'frozen__echo')).toMatchObject({
      callable: false,
      reason: expect.stringMatching(/server frozen is restarting, retry in 1 s/),
    });
    await until(() => changes > 0);

    const seenBeforeRestart = changes;
    clock.advance(clock.delays()[0] as number);
    await until(() => upstream?.state === 'ready');
    expect(resultText(await connected.call('frozen__echo', { text: 'back' }))).toBe('frozen: back');
    await until(() => changes > seenBeforeRestart);
    // The frozen process is killed (closing its stdin and SIGTERM wait while it is stopped; SIGKILL
    // does not), and only the new one is left.
    await until(() => !processesTagged(TAG).includes(pid as number));
    expect(processesTagged(TAG)).toHaveLength(1);
  });
});
