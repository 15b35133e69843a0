import { availableParallelism } from 'node:os';

/** A core less than the machine has, as vitest itself chooses; one on two cores. */
const VITEST_DEFAULT_WORKERS = Math.max(1, availableParallelism() - 1);

/**
 * Every package's test settings. Tests wait for the conditions they check; the time-outs only end
 * a test that hangs, so they are generous enough for a machine whose cores are all busy. Test
 * files run at least two at a time: most of their time is spent waiting on child processes,
 * sockets and a browser (code-graph's suite took 92 s so against 162 s one at a time, rigs' 59 s
 * against 103 s).
 */
export const TEST_SETTINGS = {
  testTimeout: 120_000,
  hookTimeout: 120_000,
  maxWorkers: Math.max(2, VITEST_DEFAULT_WORKERS),
};

/**
 * For the suites whose files each run whole fleets of processes (the aggregator's, the end-to-end
 * ones): vitest's own count. Two of their files at a time on two cores, with the machine loaded
 * besides, took a killed shared host past its 100 s to come back.
 */
export const PROCESS_FLEET_SETTINGS = { ...TEST_SETTINGS, maxWorkers: VITEST_DEFAULT_WORKERS };
