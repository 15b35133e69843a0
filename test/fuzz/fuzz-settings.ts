/**
 * One seed drives a whole run; `FUZZ_SEED` replays a reported failure, `FUZZ_ITERATIONS` runs
 * more calls per tool than the CI default, `FUZZ_TARGET` runs some servers only (comma-separated),
 * `FUZZ_LOG=FILE` writes every call and its answer to FILE, one JSON object a line, to see what
 * the arguments reach.
 */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261205);
export const CALLS_PER_TOOL = Number(process.env.FUZZ_ITERATIONS ?? 30);
/** The aggregator's downstream tools are fuzzed directly too; through it, fewer calls show its forwarding. */
export const CALLS_PER_TOOL_VIA_AGGREGATOR = Math.max(1, Math.ceil(CALLS_PER_TOOL / 6));

export function selected(target: string): boolean {
  const only = process.env.FUZZ_TARGET;
  return only === undefined || only === '' || only.split(',').includes(target);
}

export const CALL_LOG = process.env.FUZZ_LOG || undefined;
