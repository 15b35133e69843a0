import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';

/** How far progress notifications can stretch a call's timeout: up to this many times it, in all. */
export const PROGRESS_STRETCH = 4;

/**
 * When a forwarded call is given up. A call whose client asked for progress has its timeout
 * restarted by each progress notification, so a long tool that keeps reporting is not killed,
 * but it never runs longer than PROGRESS_STRETCH times the timeout.
 */
export function deadlineOptions(timeoutMs: number, withProgress: boolean): RequestOptions {
  return withProgress
    ? { timeout: timeoutMs, resetTimeoutOnProgress: true, maxTotalTimeout: timeoutMs * PROGRESS_STRETCH }
    : { timeout: timeoutMs };
}

/** What the client is told when the deadline passed: how long the call ran, and the rule that cut it. */
export function deadlineMessage(
  exposed: string,
  timeoutMs: number,
  elapsedMs: number,
  withProgress: boolean,
): string {
  const rule = withProgress
    ? `its timeout is ${seconds(timeoutMs)}, restarted by each progress notification up to ${seconds(timeoutMs * PROGRESS_STRETCH)} in all`
    : `its timeout is ${seconds(timeoutMs)}`;
  return `${exposed} was cancelled after ${seconds(elapsedMs)} without an answer (${rule}). Retry, or ask for less.`;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
