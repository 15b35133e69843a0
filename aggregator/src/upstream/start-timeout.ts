/** Why a start was abandoned at the server's connect timeout, as `lastError` says it. */
export function startTimeoutReason(ms: number): string {
  return `not ready within ${ms} ms (connectTimeoutMs)`;
}

/** Whether a server's `lastError` is that its start ran out of connectTimeoutMs. */
export function startTimedOut(lastError: string | undefined): boolean {
  return lastError?.endsWith('(connectTimeoutMs)') ?? false;
}
