// Three real `toolmesh serve --transport http` replicas on one config and one Redis (a key prefix
// of their own), behind a balancer in the test: legacy (2025) sessions survive any routing, a
// replica killed or cut off from Redis, and a rolling restart.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ConnectedClient, connectHttpClient, resultText } from '@toolmesh/core/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Balancer } from './fleet-balancer.js';
import { FIXTURE_SERVER, serveToolmesh } from './harness.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ECHO_SERVER = fileURLToPath(new URL('../../test/bench/echo-server.mjs', import.meta.url));
const SESSIONS = 20;
const CALLS = Number(process.env.FLEET_TEST_CALLS ?? 10_000);
const DRAIN_TIMEOUT_MS = 10_000;

type Replica = ReturnType<typeof serveToolmesh> & { origin: string };

let folder: string;
let config: string;
let prefix: string;
let token: string;
const replicas: Replica[] = [];

async function startReplica(extra: string[] = []): Promise<Replica> {
  const served = serveToolmesh(['--config', config, '--transport', 'http', '--port', '0', ...extra], folder, {
    TOOLMESH_DATA_DIR: path.join(folder, 'data'),
    // The state's keys (tokens, approvals) under this run's prefix too, as the fleet's are.
    TOOLMESH_REDIS_PREFIX: prefix,
  });
  const url = await served.url;
  token = await served.token;
  const replica = { ...served, origin: new URL(url).origin };
  return replica;
}

async function metric(replica: Replica, name: string): Promise<number> {
  const text = await (
    await fetch(`${replica.origin}/metrics`, { headers: { authorization: `Bearer ${token}` } })
  ).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(name))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

async function forwardsOf(fleet: Replica[]): Promise<number> {
  return (await Promise.all(fleet.map((replica) => metric(replica, 'toolmesh_fleet_forwards_total')))).reduce(
    (a, b) => a + b,
    0,
  );
}

/** Each session calls echo in a row until `total` calls were made; returns the failures. */
async function load(clients: ConnectedClient[], total: number, stop?: () => boolean) {
  const failures: string[] = [];
  let made = 0;
  await Promise.all(
    clients.map(async (client, session) => {
      while (stop ? !stop() : made < total) {
        const n = made++;
        try {
          const result = await client.call('echo__echo', { text: `${session}.${n}` });
          if (result.isError || resultText(result) !== `${session}.${n}`)
            failures.push(`call ${n}: ${resultText(result)}`);
        } catch (error) {
          failures.push(`call ${n}: ${(error as Error).message}`);
        }
      }
    }),
  );
  return { failures, made };
}

async function openSessions(url: string, count: number): Promise<ConnectedClient[]> {
  const clients: ConnectedClient[] = [];
  for (let i = 0; i < count; i++) clients.push(await connectHttpClient(url, { token }));
  return clients;
}

/** Retries `attempt` until it resolves (a condition, not a delay); rejects with the last error after `withinMs`. */
async function eventually<T>(attempt: () => Promise<T>, withinMs: number): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-fleet-'));
  mkdirSync(path.join(folder, 'data'));
  prefix = `toolmesh-test-${randomBytes(4).toString('hex')}:`;
  config = path.join(folder, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        echo: { command: process.execPath, args: [ECHO_SERVER] },
        fx: { command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_NAME: 'fx' } },
      },
      toolPolicy: { 'fx__*': { actions: ['read'] } },
      auth: { requestsPerMinute: 10_000_000 },
      state: { redis: REDIS_URL },
      fleet: { keyPrefix: prefix, drainTimeoutMs: DRAIN_TIMEOUT_MS },
    }),
  );
  // The first start makes the local token the others then read.
  replicas.push(await startReplica());
  replicas.push(...(await Promise.all([startReplica(), startReplica()])));
}, 120_000);

afterAll(async () => {
  for (const replica of replicas) replica.child.kill('SIGKILL');
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  rmSync(folder, { recursive: true, force: true });
});

describe('legacy sessions across three replicas', () => {
  it(`answers ${CALLS} calls of ${SESSIONS} sessions round-robined with no stickiness`, {
    timeout: 300_000,
  }, async () => {
    const balancer = new Balancer(
      replicas.map((replica) => replica.origin),
      'round-robin',
    );
    const url = await balancer.listen();
    const clients = await openSessions(url, SESSIONS);
    try {
      const { failures } = await load(clients, CALLS);
      expect(failures).toEqual([]);
      expect(balancer.counts.failed).toBe(0);
      // Two in three requests land on a replica that does not own the session.
      expect(await forwardsOf(replicas)).toBeGreaterThan(CALLS / 2);
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await balancer.close();
    }
  });

  it('forwards under 1 % of requests when the balancer sticks on Mcp-Session-Id', {
    timeout: 300_000,
  }, async () => {
    const balancer = new Balancer(
      replicas.map((replica) => replica.origin),
      'sticky',
    );
    const url = await balancer.listen();
    const before = await forwardsOf(replicas);
    const clients = await openSessions(url, SESSIONS);
    try {
      const { failures } = await load(clients, 2000);
      expect(failures).toEqual([]);
      const forwards = (await forwardsOf(replicas)) - before;
      expect(forwards / balancer.counts.requests).toBeLessThan(0.01);
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await balancer.close();
    }
  });

  it('serves a session through a replica that never owns it, progress and all', {
    timeout: 120_000,
  }, async () => {
    const balancer = new Balancer(
      replicas.map((replica) => replica.origin),
      'wrong',
    );
    const client = await connectHttpClient(await balancer.listen(), { token });
    try {
      const progress: number[] = [];
      const result = await client.client.callTool(
        { name: 'fx__count_slowly', arguments: { n: 3 } },
        undefined,
        {
          onprogress: (update) => progress.push(update.progress),
        },
      );
      expect(resultText(result as Parameters<typeof resultText>[0])).toBe('counted to 3');
      expect(progress).toEqual([1, 2, 3]);
    } finally {
      await client.close();
      await balancer.close();
    }
  });
});

/** A TCP relay in front of Redis that the test can cut: one replica's only way to Redis. */
async function cuttableRelay(to: URL) {
  const sockets = new Set<net.Socket>();
  let open = true;
  const server = net.createServer((client) => {
    if (!open) return client.destroy();
    const upstream = net.connect(Number(to.port || 6379), to.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut() {
      open = false;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      open = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function health(replica: Replica): Promise<Record<string, unknown>> {
  const answer = await fetch(`${replica.origin}/health`, { headers: { authorization: `Bearer ${token}` } });
  return (await answer.json()) as Record<string, unknown>;
}

async function waitFor(condition: () => Promise<boolean>, withinMs: number, what: string) {
  await eventually(async () => {
    if (!(await condition())) throw new Error(`still waiting: ${what}`);
  }, withinMs);
}

describe('replicas that fail', () => {
  it('a replica cut off from Redis stops serving; another carries its sessions on', {
    timeout: 120_000,
  }, async () => {
    const relay = await cuttableRelay(new URL(REDIS_URL));
    const isolated = await startReplica(['--redis', relay.url]);
    // On a loaded machine a replica whose event loop stalls past its lease stops serving, as it
    // must; what is measured here starts once it holds its lease.
    await waitFor(async () => (await health(isolated)).lease === 'held', 20_000, 'the lease');
    const client = await connectHttpClient(`${isolated.origin}/mcp`, { token });
    const sessionId = (client.client.transport as { sessionId?: string }).sessionId as string;
    try {
      expect(await (await resumeSession(`${isolated.origin}/mcp`, sessionId)).echo('before')).toBe('before');
      relay.cut();
      await waitFor(async () => (await health(isolated)).lease === 'lapsed', 20_000, 'the lease to lapse');
      // Straight to the cut-off replica: refused, with what to do.
      const refused = await fetch(`${isolated.origin}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      // 503 saying Redis is out of reach: its lease lapsed, and it cannot check tokens either.
      expect(refused.status).toBe(503);
      expect(await refused.text()).toMatch(/Redis/);
      // Through a replica that reaches Redis: the session goes on, same id, no new initialize.
      const other = await connectHttpClient(`${(replicas[0] as Replica).origin}/mcp`, { token });
      await other.close();
      const resumed = await resumeSession(`${(replicas[0] as Replica).origin}/mcp`, sessionId);
      expect(await eventually(() => resumed.echo('after'), 15_000)).toBe('after');
      // Back on Redis, the isolated replica forwards the session to its new owner rather than serve it.
      relay.restore();
      await waitFor(async () => (await health(isolated)).lease === 'held', 20_000, 'the lease to hold again');
      const forwardsBefore = await metric(isolated, 'toolmesh_fleet_forwards_total');
      const again = await resumeSession(`${isolated.origin}/mcp`, sessionId);
      expect(await again.echo('back')).toBe('back');
      expect(await metric(isolated, 'toolmesh_fleet_forwards_total')).toBe(forwardsBefore + 1);
    } finally {
      await client.close().catch(() => undefined);
      isolated.child.kill('SIGKILL');
      await relay.close();
    }
  });

  it('a replica killed mid-call: the call fails at once saying to retry; its session goes on elsewhere', {
    timeout: 120_000,
  }, async () => {
    const doomed = await startReplica();
    const client = await connectHttpClient(`${doomed.origin}/mcp`, { token });
    const sessionId = (client.client.transport as { sessionId?: string }).sessionId as string;
    await client.close().catch(() => undefined);
    const survivor = `${(replicas[1] as Replica).origin}/mcp`;
    // A call forwarded by a live replica to the owner, which dies while it runs.
    const session = await resumeSession(survivor, sessionId);
    const pending = session.call('fx__hang', {});
    await waitFor(async () => doomed.stderr().includes('hang: started'), 30_000, 'the call to start');
    doomed.child.kill('SIGKILL');
    const failed = await pending;
    expect(JSON.stringify(failed)).toContain('stopped before it answered');
    expect(JSON.stringify(failed)).toContain('Retry');
    // The next request of the same session is served by a live replica.
    expect(await eventually(() => session.echo('alive'), 10_000)).toBe('alive');
  });
});

/**
 * A 2025 client that carries on a session by its id, as a client does when its balancer sends it
 * elsewhere: raw JSON-RPC over fetch, no initialize.
 */
async function resumeSession(url: string, sessionId: string) {
  let id = 100;
  const post = async (method: string, params: Record<string, unknown>) => {
    const answer = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }),
    });
    const text = await answer.text();
    if (!answer.ok) throw new Error(`HTTP ${answer.status}: ${text}`);
    const data = text.includes('data: ')
      ? (text
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => JSON.parse(line.slice(6)))
          .find((message) => 'result' in message || 'error' in message) as Record<string, unknown>)
      : (JSON.parse(text) as Record<string, unknown>);
    return data;
  };
  return {
    call: (name: string, args: Record<string, unknown>) => post('tools/call', { name, arguments: args }),
    echo: async (text: string) => {
      const answer = await post('tools/call', { name: 'echo__echo', arguments: { text } });
      const result = answer.result as { content?: Array<{ text: string }> } | undefined;
      if (!result?.content) throw new Error(JSON.stringify(answer));
      return result.content[0]?.text;
    },
  };
}

describe('a rolling restart', () => {
  it('SIGTERM to each replica in turn under load: no call fails', { timeout: 300_000 }, async () => {
    const balancer = new Balancer(
      replicas.map((replica) => replica.origin),
      'round-robin',
    );
    const url = await balancer.listen();
    const clients = await openSessions(url, SESSIONS);
    const slow = await connectHttpClient(url, { token });
    let restarted = false;
    const stopped: Replica[] = [];
    const slowFailures: string[] = [];
    // Calls of half a second, so that some are in flight whenever a replica is told to stop.
    const slowCalls = (async () => {
      while (!restarted) {
        const result = await slow.call('fx__count_slowly', { n: 10 }).catch((error: Error) => error);
        if (result instanceof Error || result.isError) slowFailures.push(JSON.stringify(result));
      }
    })();
    const running = load(clients, Number.POSITIVE_INFINITY, () => restarted);
    try {
      for (let index = 0; index < replicas.length; index++) {
        const old = replicas[index] as Replica;
        stopped.push(old);
        const fresh = await startReplica();
        replicas[index] = fresh;
        balancer.backends = [...replicas.map((replica) => replica.origin), old.origin];
        const exited = new Promise((resolve) => old.child.once('exit', resolve));
        old.child.kill('SIGTERM');
        await exited;
        balancer.backends = replicas.map((replica) => replica.origin);
      }
    } finally {
      restarted = true;
    }
    const { failures, made } = await running;
    await slowCalls;
    if (failures.length > 0) console.error(stopped.map((replica) => replica.stderr()).join('\n---\n'));
    expect(made).toBeGreaterThan(0);
    expect(failures).toEqual([]);
    expect(slowFailures).toEqual([]);
    expect(balancer.counts.failed).toBe(0);
    await Promise.allSettled([...clients, slow].map((client) => client.close()));
    await balancer.close();
  });
});
