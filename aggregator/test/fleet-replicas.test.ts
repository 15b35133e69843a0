// Three real `toolmesh serve --transport http` replicas on one config and one Redis (a key prefix
// of their own), behind a balancer in the test: legacy (2025) and modern (2026-07-28) clients
// survive any routing, a replica cut off from Redis, and a rolling restart. Replicas killed
// mid-call are in fleet-kill.test.ts; Redis restarted or stalled in fleet-redis-fault.test.ts.
import net from 'node:net';
import {
  type ConnectedClient,
  connectHttpClient,
  connectModernHttpClient,
  resultText,
} from '@toolmesh/core/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ECHO_SERVER,
  echoLoad,
  eventually,
  FleetRig,
  REDIS_URL,
  type Replica,
  waitFor,
} from './fleet-rig.js';
import { FIXTURE_SERVER } from './harness.js';

const SESSIONS = 20;
const CALLS = Number(process.env.FLEET_TEST_CALLS ?? 10_000);
const DRAIN_TIMEOUT_MS = 10_000;
const FORWARDS = 'toolmesh_fleet_forwards_total';

let rig: FleetRig;
let replicas: Replica[];

const legacyClient = (url: string, token: string) => connectHttpClient(url, { token });
const modernClient = (url: string, token: string) => connectModernHttpClient(url, { token });

beforeAll(async () => {
  rig = new FleetRig({
    config: {
      mcpServers: {
        echo: { command: process.execPath, args: [ECHO_SERVER] },
        fx: { command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_NAME: 'fx' } },
      },
      toolPolicy: { 'fx__*': { actions: ['read'] } },
      auth: { requestsPerMinute: 10_000_000 },
      fleet: { drainTimeoutMs: DRAIN_TIMEOUT_MS },
    },
  });
  replicas = await rig.startMany(3);
}, 120_000);

afterAll(async () => {
  await rig.dispose();
});

describe('sessions across three replicas', () => {
  it(`answers ${CALLS} calls of ${SESSIONS} legacy sessions round-robined with no stickiness`, {
    timeout: 300_000,
  }, async () => {
    const before = await rig.total(FORWARDS);
    await rig.withBalancedClients(
      'round-robin',
      replicas,
      SESSIONS,
      legacyClient,
      async (clients, balancer) => {
        const { failures } = await echoLoad(clients, CALLS);
        expect(failures).toEqual([]);
        expect(balancer.counts.failed).toBe(0);
        // Two in three requests land on a replica that does not own the session.
        expect((await rig.total(FORWARDS)) - before).toBeGreaterThan(CALLS / 2);
      },
    );
  });

  it(`answers ${CALLS} calls of ${SESSIONS} modern (2026-07-28) clients round-robined: nothing to forward`, {
    timeout: 300_000,
  }, async () => {
    const before = await rig.total(FORWARDS);
    await rig.withBalancedClients(
      'round-robin',
      replicas,
      SESSIONS,
      modernClient,
      async (clients, balancer) => {
        const { failures } = await echoLoad(clients, CALLS);
        expect(failures).toEqual([]);
        expect(balancer.counts.failed).toBe(0);
        // Each request carries all it needs: whichever replica it reaches answers it.
        expect((await rig.total(FORWARDS)) - before).toBe(0);
      },
    );
  });

  it('forwards under 1 % of requests when the balancer sticks on Mcp-Session-Id', {
    timeout: 300_000,
  }, async () => {
    const before = await rig.total(FORWARDS);
    await rig.withBalancedClients('sticky', replicas, SESSIONS, legacyClient, async (clients, balancer) => {
      const { failures } = await echoLoad(clients, 2000);
      expect(failures).toEqual([]);
      const forwards = (await rig.total(FORWARDS)) - before;
      expect(forwards / balancer.counts.requests).toBeLessThan(0.01);
    });
  });

  it('serves a session through a replica that never owns it, progress and all', {
    timeout: 120_000,
  }, async () => {
    await rig.withBalancedClients('wrong', replicas, 1, legacyClient, async ([client]) => {
      const progress: number[] = [];
      const result = await (client as ConnectedClient).client.callTool(
        { name: 'fx__count_slowly', arguments: { n: 3 } },
        undefined,
        {
          onprogress: (update) => progress.push(update.progress),
        },
      );
      expect(resultText(result as Parameters<typeof resultText>[0])).toBe('counted to 3');
      expect(progress).toEqual([1, 2, 3]);
    });
  });
});

/**
 * Sends the head of a POST that declares `declared` body bytes and only a few of them, and
 * resolves with the first line of the answer, which must come before the body is complete.
 */
async function answerToPartialBody(origin: string, headers: Record<string, string>, declared: number) {
  const { hostname, port } = new URL(origin);
  const socket = net.connect(Number(port), hostname);
  try {
    const head = Object.entries({
      host: `${hostname}:${port}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'content-length': String(declared),
      ...headers,
    })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`POST /mcp HTTP/1.1\r\n${head}\r\n{"jsonrpc":"2.0",`);
    return await new Promise<string>((resolve, reject) => {
      let answer = '';
      socket.on('data', (chunk) => {
        answer += chunk;
        if (answer.includes('\r\n')) resolve(answer.slice(0, answer.indexOf('\r\n')));
      });
      socket.on('error', reject);
      socket.on('close', () => reject(new Error(`closed with no answer: ${answer}`)));
    });
  } finally {
    socket.destroy();
  }
}

describe("a request for another replica's session", () => {
  it('without a valid token is refused before its body is read, so a session id buys a stranger nothing', {
    timeout: 60_000,
  }, async () => {
    const [owner, other] = replicas as [Replica, Replica];
    const client = await legacyClient(await owner.url, rig.token);
    try {
      const sessionId = (client.client.transport as { sessionId?: string }).sessionId as string;
      for (const authorization of [undefined, 'Bearer tm_not-a-token-this-fleet-issued']) {
        const headers = { 'mcp-session-id': sessionId, ...(authorization && { authorization }) };
        await expect(answerToPartialBody(other.origin, headers, 1_000_000)).resolves.toMatch(
          /^HTTP\/1\.1 401/,
        );
      }
      // The owner's client goes on as before.
      expect(resultText(await client.call('echo__echo', { text: 'still mine' }))).toBe('still mine');
    } finally {
      await client.close();
    }
  });
});

describe('the fleet in Redis', () => {
  it('keeps its keys under the one prefix of state.redisPrefix, beside the tokens', async () => {
    const redis = new Redis(REDIS_URL);
    try {
      for (const replica of replicas) {
        const id = (await rig.health(replica)).replica as string;
        expect(await redis.exists(`${rig.prefix}fleet:replica:${id}`)).toBe(1);
        expect(await redis.exists(`toolmesh:fleet:replica:${id}`)).toBe(0);
      }
      expect(await redis.exists(`${rig.prefix}fleet:secret`)).toBe(1);
      expect(await redis.exists(`${rig.prefix}tokens`)).toBe(1);
    } finally {
      redis.disconnect();
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

describe('a replica cut off from Redis', () => {
  it('stops serving its sessions; another carries them on; back on Redis it forwards them, never serves them', {
    timeout: 120_000,
  }, async () => {
    const relay = await cuttableRelay(new URL(REDIS_URL));
    const isolated = await rig.start(['--redis', relay.url]);
    // On a loaded machine a replica whose event loop stalls past its lease stops serving, as it
    // must; what is measured here starts once it holds its lease.
    await waitFor(async () => (await rig.health(isolated)).lease === 'held', 20_000, 'the lease');
    const client = await connectHttpClient(`${isolated.origin}/mcp`, { token: rig.token });
    const sessionId = (client.client.transport as { sessionId?: string }).sessionId as string;
    try {
      expect(await rig.resume(`${isolated.origin}/mcp`, sessionId).echo('before')).toBe('before');
      relay.cut();
      await waitFor(
        async () => (await rig.health(isolated)).lease === 'lapsed',
        20_000,
        'the lease to lapse',
      );
      // Straight to the cut-off replica: refused, with what to do.
      const refused = await fetch(`${isolated.origin}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${rig.token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      // 503 saying Redis is out of reach: its lease lapsed, and it cannot check tokens either.
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.text()).toMatch(/Redis/);
      // Through a replica that reaches Redis: the session goes on, same id, no new initialize.
      const other = replicas[0] as Replica;
      const resumed = rig.resume(`${other.origin}/mcp`, sessionId);
      expect(await eventually(() => resumed.echo('after'), 30_000)).toBe('after');
      // Back on Redis, the isolated replica forwards the session to its new owner rather than serve it.
      relay.restore();
      await waitFor(
        async () => (await rig.health(isolated)).lease === 'held',
        20_000,
        'the lease to hold again',
      );
      const forwardsBefore = await rig.metric(isolated, FORWARDS);
      const adoptionsBefore = await rig.metric(isolated, 'toolmesh_fleet_adoptions_total');
      const again = rig.resume(`${isolated.origin}/mcp`, sessionId);
      // Its token copy is read again on a connection of its own, which may come back a moment
      // after the lease's: until then it answers 503, which forwards nothing.
      expect(await eventually(() => again.echo('back'), 30_000)).toBe('back');
      expect(await rig.metric(isolated, FORWARDS)).toBe(forwardsBefore + 1);
      expect(await rig.metric(isolated, 'toolmesh_fleet_adoptions_total')).toBe(adoptionsBefore);
    } finally {
      await client.close().catch(() => undefined);
      isolated.child.kill('SIGKILL');
      await relay.close();
    }
  });
});

describe('a rolling restart', () => {
  it('SIGTERM to each replica in turn under load: no call fails', { timeout: 300_000 }, async () => {
    await rig.withBalancedClients(
      'round-robin',
      replicas,
      SESSIONS + 1,
      legacyClient,
      async (all, balancer) => {
        const slow = all.pop() as ConnectedClient;
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
        const running = echoLoad(all, Number.POSITIVE_INFINITY, () => restarted);
        try {
          for (let index = 0; index < replicas.length; index++) {
            const old = replicas[index] as Replica;
            stopped.push(old);
            const fresh = await rig.start();
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
        const logs = stopped.map((replica) => replica.stderr()).join('\n---\n');
        if (failures.length > 0) console.error(logs);
        expect(made).toBeGreaterThan(0);
        // The balancer repeats a try that got no answer, so a call cut off by a drain would pass
        // unseen but for the drain's own word.
        expect(logs).not.toContain('drain timeout');
        expect(failures).toEqual([]);
        expect(slowFailures).toEqual([]);
        expect(balancer.counts.failed).toBe(0);
      },
    );
  });
});
