// Starts the long-running processes of the aggregator benchmarks (HTTP servers and proxies),
// waits until they serve, reads their memory, and stops them with everything they spawned.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { memoryOf } from './server.mjs';

/** A port that was free a moment ago, for programs that cannot be told `--port 0`. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Every process started here and not yet stopped, so that an interrupted run leaves none behind. */
const running = new Set();

export async function stopAll() {
  await Promise.allSettled([...running].map((started) => started.stop()));
}

function alive(pid) {
  return existsSync(`/proc/${pid}`);
}

/** Every process below `pid`, children first (from /proc/<pid>/task/<tid>/children). */
export function descendantsOf(pid) {
  const found = [];
  const walk = (parent) => {
    let tasks = [];
    try {
      tasks = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim().split(/\s+/);
    } catch {
      return;
    }
    for (const child of tasks.filter(Boolean).map(Number)) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** VmRSS of a process and, separately, the sum over all its descendants, in KiB. */
export function treeMemoryOf(pid) {
  const children = descendantsOf(pid);
  return {
    rssKiB: memoryOf(pid).rssKiB,
    childrenRssKiB: children.reduce((sum, child) => sum + memoryOf(child).rssKiB, 0),
    children: children.length,
  };
}

/**
 * Spawns a server and resolves once it serves: when a line of its output matches `ready`
 * (whose first group, if any, is returned as `url`), or when `readyUrl` answers over HTTP.
 */
export async function startProcess({ command, args, env, cwd, ready, readyUrl, timeoutMs = 30_000 }) {
  const child = spawn(command, args, {
    ...(cwd && { cwd }),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const warnings = {};
  let partialLine = '';
  /** Node warnings the process printed, by name: they are part of what it did under load. */
  const countWarnings = (chunk) => {
    const lines = (partialLine + chunk).split('\n');
    partialLine = lines.pop();
    for (const line of lines) {
      const name = /^\(node:\d+\) (\w*Warning)\b/.exec(line)?.[1];
      if (name) warnings[name] = (warnings[name] ?? 0) + 1;
    }
  };
  child.stderr.on('data', countWarnings);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const matched = new Promise((resolve) => {
    const onData = (chunk) => {
      // Keep only the tail: the proxies log every message, and nobody reads this but a failure.
      output = (output + chunk).slice(-20_000);
      const match = ready?.exec(output);
      if (match) resolve(match[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
  });
  const answered = async () => {
    while (alive(child.pid)) {
      const response = await fetch(readyUrl).catch(() => undefined);
      if (response) return readyUrl;
      await sleep(50);
    }
  };
  const failed = exited.then(({ code, signal }) => {
    throw new Error(`${command} ${args.join(' ')} exited (${signal ?? code}) before serving:\n${output}`);
  });
  // Once it serves, a later exit is its stop, not a failure.
  failed.catch(() => undefined);
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${command} ${args.join(' ')} did not serve in ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
  });
  const started = {
    pid: child.pid,
    url: undefined,
    warnings: () => ({ ...warnings }),
    /** SIGTERM, then SIGKILL for whatever it leaves behind; returns the pids it left behind. */
    async stop() {
      running.delete(started);
      const family = [child.pid, ...descendantsOf(child.pid)];
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      const deadline = Date.now() + 2000;
      while (family.some(alive) && Date.now() < deadline) await sleep(50);
      const orphans = family.filter(alive);
      for (const pid of orphans) process.kill(pid, 'SIGKILL');
      return orphans;
    },
  };
  running.add(started);
  try {
    started.url = await Promise.race([readyUrl ? answered() : matched, failed, late]);
  } catch (error) {
    await started.stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return started;
}
