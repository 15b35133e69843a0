// Summary statistics and timing for the benchmarks.
import { performance } from 'node:perf_hooks';

function sorted(values) {
  return [...values].sort((a, b) => a - b);
}

export function median(values) {
  const s = sorted(values);
  const middle = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[middle] : (s[middle - 1] + s[middle]) / 2;
}

/** Nearest-rank percentile. */
export function percentile(values, p) {
  const s = sorted(values);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export function summarize(values) {
  const s = sorted(values);
  return {
    runs: s.length,
    median: median(s),
    p95: percentile(s, 95),
    p99: percentile(s, 99),
    min: s[0],
    max: s[s.length - 1],
  };
}

/**
 * Runs the named functions `runs` times each, interleaved (order rotating per round) so that the
 * machine's noise falls on all of them alike, after `warmup` unmeasured runs each.
 */
export async function interleaved(fns, { runs, warmup = 1 }) {
  const names = Object.keys(fns);
  const times = Object.fromEntries(names.map((name) => [name, []]));
  const results = {};
  for (const name of names) for (let i = 0; i < warmup; i++) results[name] = await fns[name]();
  for (let round = 0; round < runs; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length];
      const start = performance.now();
      results[name] = await fns[name]();
      times[name].push(performance.now() - start);
    }
  }
  return Object.fromEntries(
    names.map((name) => [name, { stats: summarize(times[name]), result: results[name] }]),
  );
}

/** Runs `fn` `warmup` times unmeasured, then `runs` times; returns the times (ms) and the last result. */
export async function measure(fn, { runs, warmup = 1 }) {
  let result;
  for (let i = 0; i < warmup; i++) result = await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    result = await fn();
    times.push(performance.now() - start);
  }
  return { times, stats: summarize(times), result };
}

export function ms(value) {
  if (value >= 1000) return `${(value / 1000).toFixed(2)} s`;
  if (value >= 100) return `${value.toFixed(0)} ms`;
  return `${value.toFixed(1)} ms`;
}

/** A short duration given in ms, written in whole microseconds. */
export function micros(value) {
  return `${Math.round(value * 1000).toLocaleString('en-US')} µs`;
}

export function mib(kilobytes) {
  return `${(kilobytes / 1024).toFixed(1)} MiB`;
}
