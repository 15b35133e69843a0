// CPU time (user + system) from /proc, the figure a loaded machine inflates far less than wall
// time. Linux counts it in clock ticks of 10 ms (USER_HZ 100 on every kernel Node runs on here).
import { readFileSync } from 'node:fs';

const MS_PER_TICK = 10;

/** Fields of /proc/<pid>/stat after the command name, which may itself hold spaces. */
function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** User + system CPU a running process has used so far, in ms (utime and stime). */
export function cpuMsOf(pid) {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
}
