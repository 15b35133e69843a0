/** Sends `signal` to every process of group `pgid`; false when the group has no process left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ends what is left of a process group: SIGTERM, then SIGKILL to whatever is still there after
 * `graceMs`. Its members are not all our children, so their end can only be seen by polling.
 */
export async function endProcessGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  for (const deadline = Date.now() + graceMs; Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (!signalGroup(pgid, 0)) return;
  }
  signalGroup(pgid, 'SIGKILL');
}
