// Replicas that are there but do not serve: one stopped with SIGSTOP (it still accepts
// connections, so only its heartbeat tells), and one whose copy of the tokens went stale while
// its lease holds. A request forwarded to the stopped one gives up with a 503 that says to retry,
// the session is taken over once its heartbeat expires, and the stopped one, continued, serves
// it no more. /health says what requests meet.
import { connectHttpClient } from '@toolmesh/core/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Balancer } from './fleet-balancer.js';
import { ECHO_SERVER, eventually, FleetRig, type Replica, waitFor } from './fleet-rig.js';

const WITHIN = 60_000;
const FORWARDS = 'toolmesh_fleet_forwards_total';

let rig: FleetRig;
let survivor: Replica;

beforeAll(async () => {
  rig = new FleetRig({
    config: {
      mcpServers: { echo: { command: process.execPath, args: [ECHO_SERVER] } },
      auth: { requestsPerMinute: 10_000_000 },
    },
  });
  survivor = await rig.start();
}, 120_000);

afterAll(async () => {
  // A stopped process is continued first, so that it dies of SIGKILL at once.
  for (const replica of rig.replicas) replica.child.kill('SIGCONT');
  await rig.dispose();
});

/** The public /health answer: its HTTP status and body, as a balancer's probe sees it. */
async function probe(replica: Replica): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await fetch(`${replica.origin}/health`);
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

describe('a replica stopped with SIGSTOP', () => {
  it('a request forwarded to it gives up with a 503 saying to retry; the session goes on elsewhere', {
    timeout: 180_000,
  }, async () => {
    const stopped = await rig.start();
    // A session `stopped` owns, reached through the survivor, which forwards to its owner.
    const balancer = new Balancer([stopped.origin], 'wrong');
    const client = await connectHttpClient(await balancer.listen(), { token: rig.token });
    const sessionId = (client.client.transport as { sessionId?: string }).sessionId as string;
    const throughSurvivor = rig.resume(`${survivor.origin}/mcp`, sessionId);
    try {
      expect(await throughSurvivor.echo('before')).toBe('before');
      expect(stopped.child.kill('SIGSTOP')).toBe(true);
      // The survivor accepts the request and passes it on; the owner never answers.
      const refusal = await throughSurvivor.echo('while stopped').then(
        (text) => `answered: ${text}`,
        (error: Error) => error.message,
      );
      expect(refusal).toContain('HTTP 503');
      expect(refusal).toContain('stopped answering');
      expect(refusal).toContain('may or may not have run');
      expect(refusal).toMatch(/Retry in \d+ s/);
      // Once its heartbeat expires, the survivor takes the session over: same id, no initialize.
      expect(await eventually(() => throughSurvivor.echo('after'), WITHIN)).toBe('after');
      // Continued, the stopped replica finds its lease lapsed: it serves the session no more,
      // but forwards it to its new owner.
      stopped.child.kill('SIGCONT');
      await waitFor(async () => (await probe(stopped)).body.lease === 'held', WITHIN, 'the lease again');
      const forwardsBefore = await rig.metric(stopped, FORWARDS);
      const adoptionsBefore = await rig.metric(stopped, 'toolmesh_fleet_adoptions_total');
      expect(await rig.resume(`${stopped.origin}/mcp`, sessionId).echo('continued')).toBe('continued');
      expect(await rig.metric(stopped, FORWARDS)).toBe(forwardsBefore + 1);
      expect(await rig.metric(stopped, 'toolmesh_fleet_adoptions_total')).toBe(adoptionsBefore);
    } finally {
      stopped.child.kill('SIGCONT');
      await client.close().catch(() => undefined);
      await balancer.close();
    }
  });
});

describe('/health', () => {
  it('says degraded while the copy of the tokens is too old to trust, though the lease holds', {
    timeout: 120_000,
  }, async () => {
    const redis = new Redis(rig.redisUrl);
    const tokens = `${rig.prefix}tokens`;
    const aside = `${rig.prefix}tokens-aside`;
    try {
      expect(await probe(survivor)).toMatchObject({ status: 200, body: { lease: 'held', tokens: 'fresh' } });
      // The tokens can no longer be read (a key of the wrong type), while heartbeats renew.
      await redis.rename(tokens, aside);
      await redis.set(tokens, 'not a hash');
      await waitFor(
        async () => (await probe(survivor)).body.tokens === 'stale',
        WITHIN,
        'the copy of the tokens to age',
      );
      expect(await probe(survivor)).toMatchObject({
        status: 503,
        body: { status: 'degraded', lease: 'held', tokens: 'stale' },
      });
      // What /health says is what a request meets.
      const refused = await fetch(`${survivor.origin}/metrics`, {
        headers: { authorization: `Bearer ${rig.token}` },
      });
      expect(refused.status).toBe(503);
      await redis.del(tokens);
      await redis.rename(aside, tokens);
      await waitFor(
        async () => (await probe(survivor)).status === 200,
        WITHIN,
        'the tokens to be read again',
      );
      expect(await probe(survivor)).toMatchObject({ body: { status: 'ok', lease: 'held', tokens: 'fresh' } });
      const served = await fetch(`${survivor.origin}/metrics`, {
        headers: { authorization: `Bearer ${rig.token}` },
      });
      expect(served.status).toBe(200);
    } finally {
      if (await redis.exists(aside)) {
        await redis.del(tokens);
        await redis.rename(aside, tokens);
      }
      redis.disconnect();
    }
  });
});
