/**
 * Every package's test bounds. Tests wait for the conditions they check; these bounds only end a
 * test that hangs, so they are generous enough for a machine whose cores are all busy.
 */
export const BUSY_MACHINE_BOUNDS = { testTimeout: 120_000, hookTimeout: 120_000 };
