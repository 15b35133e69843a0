import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('./run-conformance.mjs', import.meta.url));

/** Runs the script without --write-docs, so a test run never rewrites docs/conformance.md. */
function runConformance(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    // SIGTERM, not SIGKILL: the script then stops the server it started.
    const timer = setTimeout(() => child.kill('SIGTERM'), 170_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

it('toolmesh-fs passes every MCP conformance scenario except the listed fixture-only ones', async () => {
  const { code, output } = await runConformance();
  expect(code, output).toBe(0);
}, 180_000);
