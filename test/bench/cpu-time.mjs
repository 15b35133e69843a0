// CPU time (user + system) from /proc, the figure a loaded machine inflates far less than wall
// time. Linux counts it in clock ticks of 10 ms (USER_HZ 100 on every kernel Node runs on here).
import { readdirSync, readFileSync } from 'node:fs';
import { descendantsOf } from './processes.mjs';

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

/** CPU a process and every process below it have used so far, in ms (a replica with its servers). */
export function treeCpuMsOf(pid) {
  return [pid, ...descendantsOf(pid)].reduce((sum, each) => sum + cpuMsOf(each), 0);
}

/**
 * What treeCpuMsOf counts, to the nanosecond: each thread's run time from the scheduler
 * (/proc/<pid>/task/<tid>/schedstat), for figures per call too small for 10 ms ticks. A thread
 * that ended between two readings takes its time with it: for long-lived processes only.
 */
export function preciseTreeCpuMsOf(pid) {
  let ns = 0;
  for (const each of [pid, ...descendantsOf(pid)]) {
    let threads = [];
    try {
      threads = readdirSync(`/proc/${each}/task`);
    } catch {
      continue;
    }
    for (const thread of threads) {
      try {
        ns += Number(readFileSync(`/proc/${each}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // It ended since the listing.
      }
    }
  }
  return ns / 1e6;
}

/** CPU every core of the machine has spent busy so far (all processes, kernel included), in ms. */
export function machineBusyMs() {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq: all but idle and iowait is work done here.
  const [user, nice, system, , , irq, softirq] = ticks;
  return (user + nice + system + irq + softirq) * MS_PER_TICK;
}
