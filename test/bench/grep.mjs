// Runs grep over the same tree and counts its output lines (one per matching line).
import { spawn } from 'node:child_process';

export function grepCount(flags, pattern, directory) {
  return new Promise((resolve, reject) => {
    const child = spawn('grep', [flags, '--', pattern, directory], { stdio: ['ignore', 'pipe', 'inherit'] });
    let lines = 0;
    child.stdout.on('data', (chunk) => {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 || code === 1 ? resolve(lines) : reject(new Error(`grep exited ${code}`)),
    );
  });
}

export function grepVersion() {
  return new Promise((resolve) => {
    const child = spawn('grep', ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.on('close', () => resolve(out.split('\n')[0]));
    child.on('error', () => resolve('unknown'));
  });
}
