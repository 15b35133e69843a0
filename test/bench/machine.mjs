// The facts of the machine a bench run is made on.
import os from 'node:os';
import { grepVersion } from './grep.mjs';

/** When a part of a run starts, and how busy the machine is then: its figures depend on it. */
export function startFacts() {
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    load: os.loadavg()[0].toFixed(2),
  };
}

export async function machineFacts() {
  const cpus = os.cpus();
  const { date, load } = startFacts();
  return {
    date,
    node: process.version,
    platform: `${os.type()} ${os.release()} (${process.arch})`,
    cpu: `${cpus[0]?.model.trim() ?? 'unknown'}`,
    cores: os.availableParallelism?.() ?? cpus.length,
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    load,
    grep: await grepVersion(),
    locale: process.env.LC_ALL || process.env.LANG || 'unset',
  };
}
