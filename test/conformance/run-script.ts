import { spawn } from 'node:child_process';

/**
 * Runs one of these scripts as a child process (without --write-docs, so a test run never
 * rewrites docs/conformance.md) and collects its output. On timeout it sends SIGTERM, not
 * SIGKILL, so the script still stops the servers it started.
 */
export function runScript(
  script: string,
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk;
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
