import { execFile, spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectHttpClient, resultText, spawnStdioClient } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFixture, type FixtureCopy, TOOL_NAMES, until } from './fixture-graph.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const run = promisify(execFile);
let copy: FixtureCopy;
let env: Record<string, string>;

/** Every path under the project with its size and modification time, to prove nothing is written there. */
function snapshot(root: string): string[] {
  return readdirSync(root, { recursive: true })
    .map(String)
    .sort()
    .map((entry) => {
      const stat = statSync(path.join(root, entry));
      return `${entry} ${stat.size} ${stat.mtimeMs}`;
    });
}

beforeAll(() => {
  copy = copyFixture('ts-shop');
  env = { TOOLMESH_DATA_DIR: copy.dataDir };
});
afterAll(() => copy.remove());

describe('toolmesh-code-graph over real stdio', () => {
  it('serves every tool to an SDK client, logs only to stderr, and writes nothing into the project', async () => {
    const before = snapshot(copy.root);
    const server = await spawnStdioClient(
      process.execPath,
      [BIN, '--root', copy.root, '--log-level', 'debug'],
      { env },
    );
    const call = async (name: string, args: Record<string, unknown> = {}) =>
      (await server.call(name, args)) as CallToolResult;
    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    await until('the background index', async () => (await call('index_status')).structuredContent?.roots);
    await until('the first index to finish', async () => {
      const status = (await call('index_status')).structuredContent as { roots: { complete: boolean }[] };
      return status.roots[0]?.complete;
    });
    expect((await call('code_callers', { symbol: 'Money.multiplyByRate' })).structuredContent).toMatchObject({
      callerCount: 4,
      callsiteCount: 6,
    });
    expect((await call('code_callees', { symbol: 'Money.double' })).structuredContent).toMatchObject({
      calleeCount: 2,
    });
    expect((await call('code_symbol', { name: 'Money' })).structuredContent).toMatchObject({ total: 1 });
    expect((await call('search_code', { query: 'deposit' })).structuredContent).toMatchObject({
      results: [{ qualifiedName: 'BaseAccount.deposit' }],
    });
    expect(resultText(await call('read_symbol', { symbol: 'Money.zero' }))).toContain('return new Money(0);');
    expect((await call('repo_map')).isError).toBeFalsy();
    expect((await call('reindex')).structuredContent).toMatchObject({
      roots: [{ run: { parsed: 0, unchanged: 6 } }],
    });
    expect((await call('code_symbol', { name: 'Nope' })).isError).toBe(true);
    expect(server.stderr()).toMatch(/indexed .*ts-shop: 6 parsed/);
    await server.close();
    expect(snapshot(copy.root)).toEqual(before);
    const databases = readdirSync(path.join(copy.dataDir, 'code-graph'));
    expect(databases.filter((name) => name.endsWith('.sqlite'))).toHaveLength(1);
  });

  it('answers from the CLI with the same text as the tools', async () => {
    const callers = await run(
      process.execPath,
      [BIN, 'callers', 'Money.multiplyByRate', '--root', copy.root],
      { env: { ...process.env, ...env } },
    );
    expect(callers.stdout).toContain('Money.multiplyByRate (src/pricing/money.ts:8): 4 callers, 6 callsites');
    expect(callers.stdout).toContain(
      'SavingsAccount.accrueTwice  src/lib/savings.ts:14 (field), src/lib/savings.ts:15 (returned)',
    );
    const symbol = await run(process.execPath, [BIN, 'symbol', 'Money', '--root', copy.root, '--json'], {
      env: { ...process.env, ...env },
    });
    expect(JSON.parse(symbol.stdout)).toMatchObject({
      total: 1,
      matches: [{ file: 'src/pricing/money.ts' }],
    });
    const status = await run(process.execPath, [BIN, 'status', '--root', copy.root], {
      env: { ...process.env, ...env },
    });
    expect(status.stdout).toMatch(/6 files, 26 calls/);
    const search = await run(process.execPath, [BIN, 'search', 'rate', '--root', copy.root], {
      env: { ...process.env, ...env },
    });
    expect(search.stdout).toContain('interface Rate');
    const callees = await run(process.execPath, [BIN, 'callees', 'Money.double', '--root', copy.root], {
      env: { ...process.env, ...env },
    });
    expect(callees.stdout).toContain('calls 2 targets at 3 callsites');
    const missing = await run(process.execPath, [BIN, 'callers', 'Nope', '--root', copy.root], {
      env: { ...process.env, ...env },
    }).catch((error) => error);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No symbol named "Nope"/);
    const usage = await run(process.execPath, [BIN, 'callers', '--root', copy.root]).catch((error) => error);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/callers needs a symbol/);
  });

  it('prints help, refuses unknown flags with exit code 2 and bad flag values with exit code 1', async () => {
    const help = await run(process.execPath, [BIN, '--help']);
    expect(help.stdout).toBe('');
    expect(help.stderr).toMatch(/--watch events\|polling\|off[\s\S]*--root DIR/);
    const unknown = await run(process.execPath, [BIN, '--colour']).catch((error) => error);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--colour/);
    const bad = await run(process.execPath, [BIN, '--watch', 'sometimes', '--root', copy.root], {
      env: { ...process.env, ...env },
    }).catch((error) => error);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--watch must be events, polling or off/);
  });
});

describe('toolmesh-code-graph over Streamable HTTP', () => {
  it('serves the same tools on /mcp', async () => {
    const child = spawn(
      process.execPath,
      [BIN, '--root', copy.root, '--transport', 'http', '--port', '0', '--watch', 'off'],
      {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      let stderr = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr?.on('data', (chunk) => {
          stderr += chunk;
          const found = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
          if (found) resolve(found[1] as string);
        });
        child.once('exit', () => reject(new Error(stderr)));
      });
      const client = await connectHttpClient(url);
      const status = await until('the first index', async () => {
        const answer = (await client.call('index_status')) as CallToolResult;
        const roots = (answer.structuredContent as { roots: { complete: boolean; watching: string }[] })
          .roots;
        return roots[0]?.complete ? roots[0] : undefined;
      });
      expect(status?.watching).toBe('off');
      expect(
        ((await client.call('code_symbol', { name: 'Money' })) as CallToolResult).structuredContent,
      ).toMatchObject({ total: 1 });
      await client.close();
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('toolmesh-code-graph --transport http on a port another process holds', () => {
  it('says which address is taken and what to pass instead, and exits non-zero', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const busy = await run(
        process.execPath,
        [BIN, '--root', copy.root, '--transport', 'http', '--port', String(port)],
        { env: { ...process.env, ...env } },
      ).catch((error) => error);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(
        `toolmesh-code-graph: 127.0.0.1:${port} is already in use by another process: pass --port with another number, or --port 0 for a free one`,
      );
      expect(busy.stderr).not.toContain('TypeError');
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
