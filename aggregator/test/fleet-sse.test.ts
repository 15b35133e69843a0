// The legacy HTTP+SSE transport across two real replicas on one Redis: a client's event stream
// (GET /sse) stays on one replica, while a balancer with no stickiness spreads its posts
// (POST /messages) over both; the replica a post reaches passes it on to the stream's.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { resultText } from '@toolmesh/core/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Balancer } from './fleet-balancer.js';
import { serveToolmesh } from './harness.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ECHO_SERVER = fileURLToPath(new URL('../../test/bench/echo-server.mjs', import.meta.url));
const CALLS = 40;

let folder: string;
let prefix: string;
let token: string;
const replicas: Array<ReturnType<typeof serveToolmesh> & { origin: string }> = [];

async function startReplica(config: string) {
  const served = serveToolmesh(['--config', config, '--transport', 'http', '--port', '0'], folder, {
    TOOLMESH_DATA_DIR: path.join(folder, 'data'),
    TOOLMESH_REDIS_PREFIX: prefix,
  });
  const origin = new URL(await served.url).origin;
  token = await served.token;
  replicas.push({ ...served, origin });
}

async function forwards(): Promise<number> {
  let total = 0;
  for (const replica of replicas) {
    const text = await (
      await fetch(`${replica.origin}/metrics`, { headers: { authorization: `Bearer ${token}` } })
    ).text();
    for (const line of text.split('\n'))
      if (line.startsWith('toolmesh_fleet_forwards_total{outcome="ok"'))
        total += Number(line.split(' ').at(-1));
  }
  return total;
}

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-fleet-sse-'));
  mkdirSync(path.join(folder, 'data'));
  prefix = `toolmesh-test-${randomBytes(4).toString('hex')}:`;
  const config = path.join(folder, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { echo: { command: process.execPath, args: [ECHO_SERVER] } },
      auth: { requestsPerMinute: 10_000_000 },
      state: { redis: REDIS_URL },
      fleet: { keyPrefix: prefix },
    }),
  );
  // The first start makes the local token the second then reads.
  await startReplica(config);
  await startReplica(config);
}, 120_000);

afterAll(async () => {
  for (const replica of replicas) replica.child.kill('SIGKILL');
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  rmSync(folder, { recursive: true, force: true });
});

describe('legacy /sse sessions across two replicas', () => {
  it('answers every call when the posts of one stream reach either replica', async () => {
    const balancer = new Balancer(
      replicas.map((replica) => replica.origin),
      'round-robin',
    );
    const sseUrl = (await balancer.listen()).replace(/\/mcp$/, '/sse');
    const client = new Client({ name: 'fleet-sse-test', version: '0.0.0' });
    await client.connect(
      new SSEClientTransport(new URL(sseUrl), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const forwardsBefore = await forwards();
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('echo__echo');
      for (let n = 0; n < CALLS; n++) {
        const result = (await client.callTool({
          name: 'echo__echo',
          arguments: { text: `sse ${n}` },
        })) as CallToolResult;
        expect(resultText(result)).toBe(`sse ${n}`);
      }
      // Round-robin sends every other post to the replica without the stream: each was passed on.
      expect((await forwards()) - forwardsBefore).toBeGreaterThanOrEqual(CALLS / 2);
    } finally {
      await client.close();
      await balancer.close();
    }
  });

  it('says to open /sse again for a stream no replica holds', async () => {
    const answer = await fetch(
      `${replicas[0]?.origin}/messages?sessionId=${randomBytes(8).toString('hex')}`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      },
    );
    expect(answer.status).toBe(404);
    expect(await answer.text()).toContain('open /sse first');
  });
});
