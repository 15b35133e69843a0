import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** The environment variable every rig process carries: its rig folder, so leftovers can be found by it. */
export const RIG_MARK = 'TOOLMESH_RIG_DIR';

/**
 * The argv prefix that makes the kernel kill a process when the process that started it dies
 * (even by `kill -9`), so no machine outlives the server.
 */
export const DIE_WITH_PARENT = ['setpriv', '--pdeathsig', 'KILL', '--'] as const;

/** Starts `command` as the leader of its own process group, marked with its rig folder. */
export function spawnInGroup(
  command: string,
  args: readonly string[],
  options: {
    rigFolder: string;
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    stdin?: 'pipe' | 'ignore';
    /** Whether stdout is read (default: thrown away); stderr always is. */
    stdout?: 'pipe' | 'ignore';
  },
): ChildProcess {
  const [setpriv, ...prefix] = DIE_WITH_PARENT;
  return spawn(setpriv, [...prefix, command, ...args], {
    detached: true,
    stdio: [options.stdin ?? 'ignore', options.stdout ?? 'ignore', 'pipe'],
    cwd: options.cwd ?? options.rigFolder,
    env: { ...(options.env ?? process.env), [RIG_MARK]: options.rigFolder },
  });
}

/**
 * Whether a process (or, with a negative id, a process group) still exists. A zombie counts as
 * gone: it runs nothing, and it waits only for whoever adopted it to reap it.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (pid < 0) return true;
  try {
    return readFileSync(`/proc/${pid}/stat`, 'latin1').replace(/^.*\) /s, '')[0] !== 'Z';
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

async function waitGone(pids: readonly number[], ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (pids.every((pid) => !processAlive(pid))) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The processes whose environment marks them as belonging to a rig folder inside `folder`. */
export function markedProcesses(folder: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
    } catch {
      continue;
    }
    const mark = environ.split('\0').find((line) => line.startsWith(`${RIG_MARK}=`));
    if (mark === undefined) continue;
    const rigFolder = mark.slice(RIG_MARK.length + 1);
    if (rigFolder === folder || rigFolder.startsWith(`${folder}/`)) found.push(Number(entry));
  }
  return found;
}

/**
 * Ends every process of a rig: TERM to its process groups and its marked processes, then KILL
 * to whatever is left after `graceMs`. Returns once none is left.
 */
export async function endRigProcesses(
  folder: string,
  groups: readonly number[],
  graceMs = 2000,
): Promise<void> {
  for (const group of groups) signal(-group, 'SIGTERM');
  for (const pid of markedProcesses(folder)) signal(pid, 'SIGTERM');
  const targets = () => [...groups.map((group) => -group), ...markedProcesses(folder)];
  if (await waitGone(targets(), graceMs)) return;
  for (const target of targets()) signal(target, 'SIGKILL');
  await waitGone(targets(), 5000);
}
