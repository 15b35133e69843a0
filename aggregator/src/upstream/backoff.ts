/** Delay before restart attempt `attempt` (0-based): doubling from `baseMs`, capped at `maxMs`. */
export function backoffDelay(attempt: number, baseMs = 1000, maxMs = 30_000): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 20));
}
