import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, type Harness, startHarness } from './harness.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));

function residentBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

function childrenOf(pid: number): number {
  return readdirSync('/proc').filter((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      // The parent pid is the 4th field of /proc/<pid>/stat, after the parenthesised name.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
    } catch {
      return false;
    }
  }).length;
}

async function session(url: string): Promise<void> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'soak', version: '1' });
  await client.connect(transport);
  await client.callTool({ name: 'one__echo', arguments: { text: 'x' } });
  await transport.terminateSession();
  await client.close();
}

async function sessions(url: string, count: number, concurrency: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        await session(url);
      }
    }),
  );
}

const HEAP_LIMIT_MB = 64;

let scratch: Harness;
let child: ChildProcess;
let url: string;
let token: string;
beforeAll(async () => {
  scratch = await startHarness({});
  const config = path.join(scratch.folder, 'soak.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { one: fixture('one'), two: fixture('two') },
      auth: { requestsPerMinute: 1_000_000 },
    }),
  );
  child = spawn(
    process.execPath,
    [
      // A small heap makes the collector keep resident memory near what is live, so growth that
      // survives is a leak rather than garbage not yet collected; a leak would exhaust it.
      `--max-old-space-size=${HEAP_LIMIT_MB}`,
      BIN,
      'serve',
      '--config',
      config,
      '--transport',
      'http',
      '--port',
      '0',
      '--log-level',
      'warning',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      const found = /toolmesh is serving MCP at (http:\/\/\S+\/mcp)[\s\S]*Bearer (tm_[\w-]+)/.exec(stderr);
      if (found) {
        token = found[2] as string;
        resolve(found[1] as string);
      }
    });
    child.once('exit', () => reject(new Error(stderr)));
  });
});
afterAll(async () => {
  child.kill('SIGKILL');
  await scratch.close();
});

describe('1,000 client sessions over HTTP', () => {
  it('leave the process count and resident memory flat', async () => {
    const pid = child.pid as number;
    await sessions(url, 200, 10);
    const childrenBefore = childrenOf(pid);
    const memoryBefore = residentBytes(pid);
    await sessions(url, 1000, 10);
    const health = (await (
      await fetch(url.replace(/\/mcp$/, '/health'), { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { sessions: number };
    expect(health.sessions).toBe(0);
    expect(childrenOf(pid)).toBe(childrenBefore);
    // The two servers and the orphan watchdog.
    expect(childrenBefore).toBe(3);
    // With the heap kept small this grows by a few MiB; a leak of 20 kB a session would show as 20 MB.
    expect(residentBytes(pid) - memoryBefore).toBeLessThan(20 * 1024 * 1024);
  }, 120_000);
});
