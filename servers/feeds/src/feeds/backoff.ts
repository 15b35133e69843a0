const DAY_MS = 24 * 3600_000;

/**
 * How long the schedule leaves a feed alone after its `errorCount`-th failure in a row: its
 * interval, doubled for each further failure, at most a day, and never less than the server's
 * Retry-After.
 */
export function failureDelayMs(errorCount: number, intervalMinutes: number, retryAfterMs?: number): number {
  const doubled = intervalMinutes * 60_000 * 2 ** Math.min(Math.max(errorCount - 1, 0), 16);
  return Math.max(Math.min(doubled, DAY_MS), retryAfterMs ?? 0);
}
