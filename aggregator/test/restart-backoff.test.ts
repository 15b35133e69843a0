import { createLogger } from '@toolmesh/core';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/load.js';
import { backoffDelay } from '../src/upstream/backoff.js';
import { Upstream } from '../src/upstream/upstream.js';
import { fixture, until } from './harness.js';
import { ManualClock } from './manual-clock.js';

describe('backoffDelay', () => {
  it('doubles from the base delay with each attempt', () => {
    expect([0, 1, 2, 3].map((attempt) => backoffDelay(attempt, 100, 10_000))).toEqual([100, 200, 400, 800]);
  });

  it('stops at the cap, however many attempts', () => {
    expect([4, 5, 30, 1000].map((attempt) => backoffDelay(attempt, 100, 1000))).toEqual([
      1000, 1000, 1000, 1000,
    ]);
    expect(backoffDelay(5)).toBe(30_000);
  });
});

let running: Upstream | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

/** One real fixture server behind an Upstream whose time the test moves. */
function upstreamOf(env: Record<string, string>, clock: ManualClock): Upstream {
  const name = 'flappy';
  const config = parseConfig({
    mcpServers: { [name]: fixture(name, { env: { FIXTURE_NAME: name, ...env } }) },
  }).servers.get(name);
  if (!config) throw new Error('the fixture config did not parse');
  running = new Upstream(name, config, {
    log: createLogger({ level: 'error' }),
    relay: async () => {
      throw new Error('no client here');
    },
    pingIntervalMs: 0,
    backoffBaseMs: 100,
    backoffMaxMs: 800,
    clock,
  });
  return running;
}

/** Waits for the restart the server's loss scheduled, and returns its delay. */
async function scheduledRestart(upstream: Upstream, clock: ManualClock): Promise<number> {
  await until(() => upstream.state === 'restarting' && clock.delays().length === 1);
  return clock.delays()[0] as number;
}

describe('restarting a server that keeps crashing', () => {
  it('backs off further each time one exits soon after becoming ready', async () => {
    const clock = new ManualClock();
    const upstream = upstreamOf({ FIXTURE_EXIT_AFTER_MS: '400' }, clock);
    await upstream.start();
    const delays: number[] = [];
    for (let restart = 0; restart < 5; restart++) {
      const delay = await scheduledRestart(upstream, clock);
      // Only a server that got ready and then went away is lost this way (not a failed start).
      expect(upstream.lastError).toBe('the connection closed');
      delays.push(delay);
      clock.advance(delay);
    }
    expect(delays).toEqual([100, 200, 400, 800, 800]);
  });

  it('starts the backoff over once a server has stayed ready for a minute', async () => {
    const clock = new ManualClock();
    const upstream = upstreamOf({}, clock);
    await upstream.start();
    const crash = async () => {
      await expect(upstream.callTool('crash', {}, {})).rejects.toThrow();
      const delay = await scheduledRestart(upstream, clock);
      clock.advance(delay);
      await until(() => upstream.state === 'ready');
      return delay;
    };
    expect(await crash()).toBe(100);
    expect(await crash()).toBe(200);
    clock.advance(59_999);
    expect(await crash()).toBe(400);
    clock.advance(60_000);
    expect(await crash()).toBe(100);
  });
});
