import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';

/**
 * The watchdog's whole program, for `/bin/sh` rather than node so that it costs about a megabyte,
 * not forty. It reads "+ PGID" and "- PGID" lines; its input ends when toolmesh is gone, however
 * it ended (SIGKILL and crashes included), and then it sends SIGTERM to every group still listed,
 * waits up to 2 s for them to go, sends SIGKILL to what is left, and exits.
 */
const PROGRAM = `
groups=' '
while read -r change pgid; do
  case $change in
    +) groups="$groups$pgid " ;;
    -) case $groups in *" $pgid "*) groups="\${groups%% $pgid *} \${groups#* $pgid }" ;; esac ;;
  esac
done
alive() { for g in $groups; do kill -0 -$g 2>/dev/null && return 0; done; return 1; }
for g in $groups; do kill -TERM -$g 2>/dev/null; done
tries=20
while [ $tries -gt 0 ] && alive; do sleep 0.1 2>/dev/null || sleep 1; tries=$((tries - 1)); done
for g in $groups; do kill -KILL -$g 2>/dev/null; done
`;

const watched = new Set<number>();
let watchdog: ChildProcess | undefined;

/**
 * One per toolmesh process, started with the first group it is to watch. It runs in a session of
 * its own, so a Ctrl-C or a kill of toolmesh's process group does not take it down with toolmesh;
 * it never writes to toolmesh's stdout, and neither it nor its pipe keeps toolmesh running.
 */
function startWatchdog(): ChildProcess {
  const child = spawn('/bin/sh', ['-c', PROGRAM], {
    // Its name in `ps`.
    argv0: 'toolmesh-watchdog',
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
    // Holding no folder of the user's busy (a mount that should unmount).
    cwd: '/',
  });
  child.unref();
  (child.stdin as Socket).unref();
  // A watchdog gone early (killed by someone) is replaced at the next change, told every group.
  const forget = () => {
    if (watchdog === child) watchdog = undefined;
  };
  child.on('error', forget);
  child.on('exit', forget);
  child.stdin?.on('error', forget);
  child.stdin?.write([...watched].map((pgid) => `+ ${pgid}\n`).join(''));
  return child;
}

function tell(line: string): void {
  if (watchdog) watchdog.stdin?.write(line);
  else watchdog = startWatchdog();
}

/** Has the watchdog end group `pgid` should toolmesh die without ending it itself. */
export function watchProcessGroup(pgid: number): void {
  watched.add(pgid);
  tell(`+ ${pgid}\n`);
}

/** The group has ended: its number may be given to another process from now on. */
export function unwatchProcessGroup(pgid: number): void {
  if (watched.delete(pgid)) tell(`- ${pgid}\n`);
}
