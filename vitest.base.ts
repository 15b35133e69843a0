import { availableParallelism } from 'node:os';

/**
 * Every package's test settings. Tests wait for the conditions they check; the time-outs only end
 * a test that hangs, so they are generous enough for a machine whose cores are all busy. Test
 * files run at least two at a time: most of their time is spent waiting on child processes,
 * sockets and browsers, and vitest's default (a core less than the machine has) ran them one at
 * a time on two cores, the aggregator's in 693 s against 483 s two at a time.
 */
export const TEST_SETTINGS = {
  testTimeout: 120_000,
  hookTimeout: 120_000,
  maxWorkers: Math.max(2, availableParallelism() - 1),
};
