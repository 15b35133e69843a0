// Two replicas of a fleet on a PRIVATE redis-server this test starts (the machine's shared Redis
// is never restarted or paused), with the audit in PostgreSQL (a schema of this run). Redis is
// restarted empty, then stalled (SIGSTOP / SIGCONT), while sessions call tools and approvals
// wait: meanwhile every request gets a clear 503, never an answer made up from memory; after,
// toolmesh serves again, no approval is decided twice, no acknowledged call lacks its audit
// record, and no call runs unapproved. The times measured are printed, for the report.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { type ConnectedClient, connectHttpClient, resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresRecords } from '../src/state/postgres-records.js';
import { Balancer } from './fleet-balancer.js';
import {
  approvalAsked,
  approvalFleetConfig,
  approve,
  connectSse,
  eventually,
  FleetRig,
  POSTGRES_URL,
  type Replica,
  waitFor,
  waitingApprovals,
} from './fleet-rig.js';
import { PrivateRedis } from './private-redis.js';

const WITHIN = 60_000;

/** A token of the config's own (it outlives Redis losing its data, as `token create`'s would not). */
function configToken(name: string, approver = false) {
  const secret = `tm_${randomBytes(24).toString('hex')}`;
  return { secret, entry: { name, sha256: createHash('sha256').update(secret).digest('hex'), approver } };
}

const agent = configToken('agent');
const reviewer = configToken('reviewer', true);

let redis: PrivateRedis;
let rig: FleetRig;
let replicas: Replica[];
let balancer: Balancer;
let url: string;
let audit: PostgresRecords;
/** The texts of the echo calls the clients saw answered: each must have its audit record. */
const answered: string[] = [];

beforeAll(async () => {
  redis = await PrivateRedis.start();
  rig = new FleetRig({
    redisUrl: redis.url,
    postgres: true,
    config: approvalFleetConfig({ tokens: [agent.entry, reviewer.entry] }),
  });
  replicas = await rig.startMany(2);
  balancer = new Balancer(
    replicas.map((replica) => replica.origin),
    'round-robin',
  );
  url = await balancer.listen();
  audit = await PostgresRecords.open(POSTGRES_URL, { schema: rig.schema as string });
}, 120_000);

afterAll(async () => {
  await balancer?.close();
  await audit?.close();
  await rig?.dispose();
  await redis?.stop();
});

const connect = () => connectHttpClient(url, { token: agent.secret });

async function echo(client: ConnectedClient, text: string): Promise<void> {
  const result = await client.call('echo__echo', { text });
  if (resultText(result) !== text) throw new Error(`echo answered ${resultText(result)}`);
  answered.push(text);
}

const decide = (replica: Replica, id: string) => approve(replica, reviewer.secret, id);

/** A call of fx__write_marker, once its approval waits for a person; its id. */
async function waitingApproval(client: ConnectedClient, marker: string) {
  const replica = replicas[0] as Replica;
  await waitingApprovals(replica, reviewer.secret); // being asked makes the reviewer a connected approver
  const call = client.call('fx__write_marker', { path: marker }).then(
    (result) => ({ ran: !result.isError, text: resultText(result) }),
    (error: Error) => ({ ran: false, text: error.message }),
  );
  const id = await approvalAsked(
    replica,
    reviewer.secret,
    (approval) => approval.arguments.path === marker,
    WITHIN,
  );
  return { id, call };
}

/** A request of an existing session, sent straight to `replica` as any client would. */
function sessionRequest(replica: Replica, sessionId: string) {
  return fetch(`${replica.origin}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${agent.secret}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo__echo', arguments: { text: 'x' } },
    }),
  });
}

/** Every replica answers a session's request with 503, Retry-After and a message naming Redis. */
async function everyReplicaRefuses(sessionId: string): Promise<void> {
  for (const replica of replicas) {
    const answer = await sessionRequest(replica, sessionId);
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(await answer.text()).toMatch(/Redis/);
  }
}

async function servedAgain(client: ConnectedClient, since: number, tag: string): Promise<number> {
  let n = 0;
  await eventually(() => echo(client, `${tag} ${n++}`), WITHIN);
  return performance.now() - since;
}

/** Every echo call a client saw answered has its record in PostgreSQL. */
async function expectEveryAnswerAudited(): Promise<void> {
  const records = await audit.auditRecords({ tool: 'echo__echo', outcome: 'ok', limit: 100_000 });
  const recorded = new Set(records.map((record) => record.argumentsDigest.redacted));
  expect(answered.filter((text) => !recorded.has(JSON.stringify({ text })))).toEqual([]);
}

/**
 * The session that was open goes on when its owner kept it (its lease held through the fault);
 * a replica whose lease lapsed dropped it, and says so (404: initialize again) rather than guess.
 */
async function openSessionAfter(client: ConnectedClient, tag: string): Promise<string> {
  let n = 0;
  const old = await eventually(async () => {
    try {
      // Twice: the round-robin sends one to each replica.
      await echo(client, `${tag} ${n++}`);
      await echo(client, `${tag} ${n++}`);
      return 'served';
    } catch (error) {
      if (/Session not found/.test((error as Error).message)) return 'ended';
      throw error;
    }
  }, WITHIN);
  const lapsed = replicas.some((replica) => replica.stderr().includes('could not renew its heartbeat'));
  expect(old).toEqual(lapsed ? expect.stringMatching(/served|ended/) : 'served');
  return old;
}

function sessionIdOf(client: ConnectedClient): string {
  return (client.client.transport as { sessionId?: string }).sessionId as string;
}

describe('a fleet whose Redis fails', () => {
  it('Redis restarted empty: 503 meanwhile, then serves again; nothing decided twice, lost, or run unapproved', {
    timeout: 240_000,
  }, async () => {
    const client = await connect();
    // A legacy /sse client too: its stream stays on one replica, its posts reach both.
    const sse = await connectSse(url, agent.secret);
    try {
      for (let i = 0; i < 10; i++) await echo(client, `before ${i}`);
      expect(resultText(await sse.call('echo__echo', { text: 'sse before' }))).toBe('sse before');
      // An approval decided before Redis goes: the call runs once, and the decision is archived.
      const done = path.join(rig.folder, 'decided-before.txt');
      const decided = await waitingApproval(client, done);
      expect((await decide(replicas[1] as Replica, decided.id)).status).toBe(200);
      expect(await decided.call).toMatchObject({ ran: true });
      // One still waiting when Redis goes.
      const never = path.join(rig.folder, 'pending-at-restart.txt');
      const pending = await waitingApproval(client, never);

      await redis.stop();
      const stoppedAt = performance.now();
      // The waiting call fails: its approval cannot be read, and it is never taken as given.
      const outcome = await pending.call;
      expect(outcome.ran).toBe(false);
      const failedAfter = performance.now() - stoppedAt;
      await everyReplicaRefuses(sessionIdOf(client));
      // A new session cannot be opened either: clear 503s, not a session kept in memory only.
      await expect(connect()).rejects.toThrow(/503|Redis/);

      await redis.start();
      const restartedAt = performance.now();
      const fresh = await eventually(connect, WITHIN);
      const newSessionAfter = await servedAgain(fresh, restartedAt, 'fresh');
      // Redis lost the pending approval: nobody can decide it now, and its call never ran.
      const late = await decide(replicas[0] as Replica, pending.id);
      expect(late.status).toBe(404);
      expect(existsSync(never)).toBe(false);
      // The decision made before was archived once, with who made it.
      const history = await audit.approvalHistory({ limit: 100 });
      expect(history.filter((approval) => approval.id === decided.id)).toEqual([
        expect.objectContaining({ status: 'approved', decidedBy: 'reviewer (reviewer)' }),
      ]);
      expect(readFileSync(done, 'utf8')).toBe('fx ran\n');
      // Its owner recorded the open session again: it goes on on either replica.
      const old = await openSessionAfter(client, 'after restart');
      // The stream's holder recorded it again, so the other replica passes its posts on.
      let n = 0;
      await eventually(async () => {
        for (let i = 0; i < 2; i++) {
          const text = `sse after ${n++}`;
          expect(resultText(await sse.call('echo__echo', { text }))).toBe(text);
        }
      }, WITHIN);
      await expectEveryAnswerAudited();
      console.log(
        `fleet Redis restarted empty: waiting call failed after ${Math.round(failedAfter)} ms; a new session served ${Math.round(newSessionAfter)} ms after Redis was back; the open session ${old}`,
      );
      await fresh.close();
    } finally {
      await client.close().catch(() => undefined);
      await sse.close().catch(() => undefined);
    }
  });

  it('Redis stalled: 503 meanwhile, then serves again; the approval waiting then never runs the call', {
    timeout: 240_000,
  }, async () => {
    const client = await connect();
    try {
      for (let i = 0; i < 10; i++) await echo(client, `before stall ${i}`);
      const marker = path.join(rig.folder, 'pending-at-stall.txt');
      const pending = await waitingApproval(client, marker);
      redis.pause();
      const pausedAt = performance.now();
      let resumedAt = 0;
      try {
        // Commands time out rather than hang: the waiting call fails, and requests get 503.
        const outcome = await pending.call;
        expect(outcome.ran).toBe(false);
        await waitFor(
          async () => (await sessionRequest(replicas[0] as Replica, sessionIdOf(client))).status === 503,
          WITHIN,
          'a 503 while Redis stalls',
        );
        await everyReplicaRefuses(sessionIdOf(client));
        const refused = await decide(replicas[1] as Replica, pending.id);
        expect(refused.status).toBe(503);
      } finally {
        redis.resume();
        resumedAt = performance.now();
      }
      const stalledFor = resumedAt - pausedAt;
      const fresh = await eventually(connect, WITHIN);
      const newSessionAfter = await servedAgain(fresh, resumedAt, 'after stall');
      // The session that was open goes on when its owner kept it (its lease held through the
      // stall); a replica whose lease lapsed dropped it, and says so rather than guess.
      const old = await openSessionAfter(client, 'after stall');
      // Whatever becomes of the approval that waited, its call does not run: its waiter is gone.
      await decide(replicas[0] as Replica, pending.id);
      await echo(fresh, 'after the late decision');
      expect(existsSync(marker)).toBe(false);
      await expectEveryAnswerAudited();
      console.log(
        `fleet Redis stalled ${Math.round(stalledFor)} ms: a new session served ${Math.round(newSessionAfter)} ms after it answered again; the open session ${old}`,
      );
      await fresh.close();
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});
