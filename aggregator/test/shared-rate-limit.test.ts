import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenHash } from '../src/auth/token-secret.js';
import { fixture, type ServedToolmesh, serveToolmesh } from './harness.js';
import { deleteKeys, REDIS_URL } from './state-backends.js';

const PER_MINUTE = 6;
const TOKEN = 'tm_shared-rate-limit-test-token-0123456789abcdef';
/** A token with a budget of its own, for a 2025 session whose requests reach both replicas. */
const SESSION_TOKEN = 'tm_shared-rate-limit-session-token-0123456789ab';
/** Reads the metrics, from a budget apart. */
const OPS_TOKEN = 'tm_shared-rate-limit-ops-token-0123456789abcdef';

let folder: string;
let prefix: string;
const replicas: ServedToolmesh[] = [];

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-fleet-limit-'));
  prefix = `toolmesh-test:${process.pid}_${randomBytes(4).toString('hex')}:`;
  const config = path.join(folder, 'toolmesh.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { fixture: fixture('fixture') },
      auth: {
        requestsPerMinute: PER_MINUTE,
        tokens: [
          { name: 'bot', sha256: tokenHash(TOKEN) },
          { name: 'sessions', sha256: tokenHash(SESSION_TOKEN) },
          { name: 'ops', sha256: tokenHash(OPS_TOKEN) },
        ],
      },
      state: { redis: REDIS_URL },
    }),
  );
  for (const replica of ['a', 'b'])
    replicas.push(
      serveToolmesh(['--config', config, '--transport', 'http', '--port', '0'], folder, {
        TOOLMESH_DATA_DIR: path.join(folder, `data-${replica}`),
        TOOLMESH_REDIS_PREFIX: prefix,
      }),
    );
  await Promise.all(replicas.map((replica) => replica.url));
});
afterAll(async () => {
  for (const replica of replicas) replica.child.kill('SIGTERM');
  await deleteKeys(prefix);
  rmSync(folder, { recursive: true, force: true });
});

/** Posts one JSON-RPC message to `replica` with SESSION_TOKEN; the status, and the body read. */
async function post(replica: ServedToolmesh, message: Record<string, unknown>, sessionId?: string) {
  const response = await fetch(await replica.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${SESSION_TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sessionId && { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  return {
    status: response.status,
    sessionId: response.headers.get('mcp-session-id'),
    text: await response.text(),
  };
}

async function forwards(replica: ServedToolmesh): Promise<number> {
  const text = await (
    await fetch(new URL('/metrics', await replica.url), { headers: { authorization: `Bearer ${OPS_TOKEN}` } })
  ).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('toolmesh_fleet_forwards_total'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

describe('the rate limit of replicas sharing Redis', () => {
  it('is one budget: requests to both replicas together are accepted at most the allowance', async () => {
    const statuses: number[] = [];
    const started = Date.now();
    for (let sent = 0; sent < PER_MINUTE * 3; sent++) {
      const replica = replicas[sent % 2] as ServedToolmesh;
      const response = await fetch(await replica.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: sent, method: 'ping' }),
      });
      statuses.push(response.status);
      if (response.status === 429) {
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(await response.text()).toMatch(/Too many requests for token bot: it may make 6 a minute/);
      } else await response.body?.cancel();
    }
    // The minute's allowance, plus what refilled while the requests ran (one per 10 s).
    const accepted = statuses.filter((status) => status !== 429).length;
    expect(accepted).toBeGreaterThanOrEqual(PER_MINUTE);
    expect(accepted).toBeLessThanOrEqual(PER_MINUTE + Math.floor((Date.now() - started) / 10_000));
    // Both replicas refused some: the budget they share ran out on each.
    expect(statuses.filter((status, index) => status === 429 && index % 2 === 0).length).toBeGreaterThan(0);
    expect(statuses.filter((status, index) => status === 429 && index % 2 === 1).length).toBeGreaterThan(0);
  });

  it('takes a request one replica forwarded to another once: the allowance is all accepted, and no more', async () => {
    const [a, b] = replicas as [ServedToolmesh, ServedToolmesh];
    const forwardsBefore = await forwards(b);
    const started = Date.now();
    const opened = await post(a, {
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'limit-test', version: '0' },
      },
    });
    expect(opened.status).toBe(200);
    const sessionId = opened.sessionId as string;
    const statuses = [
      opened.status,
      (await post(a, { method: 'notifications/initialized' }, sessionId)).status,
    ];
    // The session is a's: every request sent to b is forwarded to a.
    for (let sent = 1; sent <= PER_MINUTE * 3; sent++) {
      const answer = await post(sent % 2 === 1 ? b : a, { id: sent, method: 'ping' }, sessionId);
      statuses.push(answer.status);
      if (answer.status !== 429) expect(answer.text).toContain(`"id":${sent}`);
    }
    expect(await forwards(b)).toBeGreaterThan(forwardsBefore);
    // Charged twice, a forwarded request would spend two of the allowance, and fewer would pass.
    const accepted = statuses.filter((status) => status !== 429).length;
    expect(accepted).toBeGreaterThanOrEqual(PER_MINUTE);
    expect(accepted).toBeLessThanOrEqual(PER_MINUTE + Math.floor((Date.now() - started) / 10_000));
    expect(statuses.filter((status) => status !== 429 && status !== 200 && status !== 202)).toEqual([]);
  });
});
