/** Sends `signal` to every process of group `pgid`; false when the group has no process left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** How long a group killed with SIGKILL is given to be gone; a member nobody reaps stays a zombie. */
const KILLED_GONE_WITHIN_MS = 1000;

/** Resolves once group `pgid` has no process left, or after `ms`; false if it still has one. */
async function goneWithin(pgid: number, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (!signalGroup(pgid, 0)) return true;
  }
  return false;
}

/**
 * Ends what is left of a process group: SIGTERM, then SIGKILL to whatever is still there after
 * `graceMs`, and resolves once it is gone (a SIGKILL lands later on a busy machine). Its members
 * are not all our children, so their end can only be seen by polling.
 */
export async function endProcessGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  if (await goneWithin(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  await goneWithin(pgid, KILLED_GONE_WITHIN_MS);
}
