// Starts the servers a conformance run measures, as child processes that say where they listen,
// and makes sure none of them outlives the script: not on an error, not on a signal.
import { spawn } from 'node:child_process';

const children = new Set();

/** Also kills what is still running when the script exits, however it exits. */
export function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(1));

const LISTENING = /listening on (http:\/\/\S+\/mcp)\b/;

/**
 * Runs `node <args>` and resolves `url` once its stderr says `listening on <url>`; `label` names
 * it in errors, which carry the tail of its output.
 */
export function startServer(label, args, env = {}) {
  const child = track(
    spawn(process.execPath, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  let log = '';
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} did not listen within 15 s:\n${log}`)), 15_000);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      log = (log + chunk).slice(-20_000);
      const listening = LISTENING.exec(log);
      if (listening) {
        clearTimeout(timer);
        resolve(listening[1]);
      }
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited (${signal ?? code}) before listening:\n${log}`));
    });
  });
  return { child, url };
}

function isRunning(child) {
  return child.exitCode === null && child.signalCode === null;
}

/** SIGTERM lets the server close its sessions (and its own children); SIGKILL follows after 3 s. */
export async function stopServer(child) {
  if (!isRunning(child)) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}
