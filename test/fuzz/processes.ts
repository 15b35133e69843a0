import { readdirSync, readFileSync } from 'node:fs';

function parentOf(pid: string): number | undefined {
  try {
    // Fields after the command name, which is in parentheses and may hold spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Every process below `pid`: its children, theirs, and so on. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(entry);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const walk = (from: number) => {
    for (const child of children.get(from) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

function running(pid: number): boolean {
  try {
    // A zombie has exited; only its parent has not reaped it yet.
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The ones of `pids` still running after waiting up to `ms` for them to go. */
export async function stillRunning(pids: number[], ms = 15_000): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = pids.filter(running);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = left.filter(running);
  }
  return left;
}
