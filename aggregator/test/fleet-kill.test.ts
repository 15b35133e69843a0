// A replica of a fleet killed with SIGKILL while its sessions are busy: mid-call, mid-elicitation,
// and while a call waits for approval. Its sessions are taken over by a replica that lives, the
// calls in flight fail saying to retry and are audited (in PostgreSQL) as cut off, and the call
// that waited for approval never runs. The times measured are printed, for the report; the
// bounds here are generous waits, not targets (the 10 s belong to a benchmark).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import {
  type ConnectedClient,
  connectHttpClient,
  connectModernHttpClient,
  resultText,
} from '@toolmesh/core/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../src/audit/audit-record.js';
import { PostgresRecords } from '../src/state/postgres-records.js';
import { Balancer } from './fleet-balancer.js';
import {
  approvalAsked,
  approvalFleetConfig,
  approve,
  eventually,
  FleetRig,
  POSTGRES_URL,
  type Replica,
  waitFor,
  waitingApprovals,
} from './fleet-rig.js';

const WITHIN = 60_000;

let rig: FleetRig;
let survivors: Replica[];
let audit: PostgresRecords;
let reviewer: string;

beforeAll(async () => {
  rig = new FleetRig({ postgres: true, config: approvalFleetConfig() });
  survivors = await rig.startMany(2);
  reviewer = await rig.approverToken();
  audit = await PostgresRecords.open(POSTGRES_URL, { schema: rig.schema as string });
}, 120_000);

afterAll(async () => {
  await audit?.close();
  await rig.dispose();
});

/**
 * A session that `doomed` owns, reached through a balancer that always sends it to a survivor
 * (which forwards to the owner while it lives, then takes the session over).
 */
async function sessionOwnedBy(doomed: Replica, options: Parameters<typeof connectHttpClient>[1] = {}) {
  const balancer = new Balancer([doomed.origin], 'wrong');
  const client = await connectHttpClient(await balancer.listen(), { ...options, token: rig.token });
  balancer.backends = [doomed.origin, ...survivors.map((survivor) => survivor.origin)];
  return {
    client,
    close: async () => {
      await client.close().catch(() => undefined);
      await balancer.close();
    },
  };
}

function killed(replica: Replica): Promise<number> {
  const exited = new Promise((resolve) => replica.child.once('exit', resolve));
  replica.child.kill('SIGKILL');
  return exited.then(() => performance.now());
}

/** The failure of a call cut off by its replica's death, as the client saw it. */
async function failureOf(call: Promise<unknown>): Promise<string> {
  const outcome = await call.then(
    (result) => JSON.stringify(result),
    (error: Error) => error.message,
  );
  return outcome;
}

/** How long after `since` the session answers again: another replica took it over. */
async function servedAgain(client: ConnectedClient, since: number): Promise<number> {
  await eventually(async () => {
    const result = await client.call('echo__echo', { text: 'alive' });
    if (resultText(result) !== 'alive') throw new Error(resultText(result));
  }, WITHIN);
  return performance.now() - since;
}

async function cutOffRecords(tool: string): Promise<AuditRecord[]> {
  return audit.auditRecords({ tool, outcome: 'cutOff', limit: 10 });
}

function report(what: string, figures: Record<string, number>): void {
  const shown = Object.entries(figures).map(([name, ms]) => `${name} ${Math.round(ms)} ms`);
  console.log(`fleet kill, ${what}: ${shown.join(', ')}`);
}

describe('a replica killed with SIGKILL', () => {
  it('mid-call: the call fails saying to retry, is audited as cut off, and the session goes on elsewhere', {
    timeout: 180_000,
  }, async () => {
    const doomed = await rig.start();
    const adoptionsBefore = await rig.total('toolmesh_fleet_adoptions_total', survivors);
    const { client, close } = await sessionOwnedBy(doomed);
    try {
      const pending = failureOf(client.call('fx__hang', {}));
      await waitFor(async () => doomed.stderr().includes('hang: started'), WITHIN, 'the call to start');
      const killedAt = await killed(doomed);
      const failure = await pending;
      const failedAfter = performance.now() - killedAt;
      expect(failure).toContain(`The toolmesh replica serving this session`);
      expect(failure).toContain('stopped before it answered');
      expect(failure).toContain('Retry it');
      const adoptedAfter = await servedAgain(client, killedAt);
      expect(await rig.total('toolmesh_fleet_adoptions_total', survivors)).toBeGreaterThan(adoptionsBefore);
      const [record] = await eventually(async () => {
        const found = await cutOffRecords('fx__hang');
        if (found.length === 0) throw new Error('no cut-off record yet');
        return found;
      }, WITHIN);
      expect(record).toMatchObject({
        server: 'fx',
        outcome: 'cutOff',
        error: expect.stringMatching(/stopped before this call answered: it may or may not have run/),
      });
      expect(record?.approval).toBeUndefined();
      report('mid-call', {
        'in-flight call failed after': failedAfter,
        'session served again after': adoptedAfter,
      });
    } finally {
      await close();
    }
  });

  it('between calls: the next request, passed on before it was parsed, is served where it landed', {
    timeout: 180_000,
  }, async () => {
    const doomed = await rig.start();
    const owner = await connectHttpClient(`${doomed.origin}/mcp`, { token: rig.token });
    try {
      const sessionId = owner.client.transport?.sessionId as string;
      // The survivor passes the session's requests on to the owner it read (for a second, unparsed).
      const elsewhere = rig.resume(`${survivors[0]?.origin}/mcp`, sessionId);
      expect(await elsewhere.echo('forwarded')).toBe('forwarded');
      await killed(doomed);
      // Nothing listens where the owner was: the request, its body already read to pass it on, is
      // served by the survivor, which takes the session over, at the first try.
      expect(await elsewhere.echo('taken over')).toBe('taken over');
    } finally {
      await owner.close().catch(() => undefined);
    }
  });

  it('mid-elicitation: the call fails saying to retry, the late answer harms nothing, the session goes on', {
    timeout: 180_000,
  }, async () => {
    const doomed = await rig.start();
    const { client, close } = await sessionOwnedBy(doomed, { capabilities: { elicitation: {} } });
    let asked!: () => void;
    const elicited = new Promise<void>((resolve) => {
      asked = resolve;
    });
    let answer!: (result: ElicitResult) => void;
    client.client.setRequestHandler(ElicitRequestSchema, () => {
      asked();
      return new Promise<ElicitResult>((resolve) => {
        answer = resolve;
      });
    });
    try {
      const pending = failureOf(client.call('fx__ask_user', {}));
      await elicited;
      const killedAt = await killed(doomed);
      const failure = await pending;
      const failedAfter = performance.now() - killedAt;
      expect(failure).toContain('stopped before it answered');
      expect(failure).toContain('Retry it');
      // The user answers after all: the answer reaches a replica that knows no such request.
      answer({ action: 'accept', content: { colour: 'teal' } });
      const adoptedAfter = await servedAgain(client, killedAt);
      const [record] = await eventually(async () => {
        const found = await cutOffRecords('fx__ask_user');
        if (found.length === 0) throw new Error('no cut-off record yet');
        return found;
      }, WITHIN);
      expect(record).toMatchObject({ server: 'fx', outcome: 'cutOff' });
      report('mid-elicitation', {
        'in-flight call failed after': failedAfter,
        'session served again after': adoptedAfter,
      });
    } finally {
      await close();
    }
  });

  it('a modern client mid-call (no session to take over): recorded as cut off once the heartbeat expires', {
    timeout: 180_000,
  }, async () => {
    const doomed = await rig.start();
    const id = (await rig.health(doomed)).replica as string;
    const redis = new Redis(rig.redisUrl);
    const modern = await connectModernHttpClient(`${doomed.origin}/mcp`, { token: rig.token });
    try {
      const pending = failureOf(modern.call('fx__count_slowly', { n: 100_000 }));
      // The call is marked in Redis while it runs: that mark is what outlives the replica.
      await waitFor(
        async () => (await redis.hlen(`${rig.prefix}fleet:inflight:${id}`)) === 1,
        WITHIN,
        'the call to be marked in flight',
      );
      const killedAt = await killed(doomed);
      await pending;
      const [record] = await eventually(async () => {
        const found = await cutOffRecords('fx__count_slowly');
        if (found.length === 0) throw new Error('no cut-off record yet');
        return found;
      }, WITHIN);
      const recordedAfter = performance.now() - killedAt;
      expect(record).toMatchObject({
        server: 'fx',
        outcome: 'cutOff',
        argumentsDigest: { redacted: '{"n":100000}' },
      });
      expect(await redis.exists(`${rig.prefix}fleet:inflight:${id}`)).toBe(0);
      report('a modern call, no adoption', { 'recorded as cut off after': recordedAfter });
    } finally {
      await modern.close().catch(() => undefined);
      redis.disconnect();
    }
  });

  it('while an approval is pending: the call never runs, the approval is closed, the audit says cut off', {
    timeout: 180_000,
  }, async () => {
    const marker = path.join(rig.folder, 'approved-side-effect.txt');
    const survivor = survivors[0] as Replica;
    const approvals = () => waitingApprovals(survivor, reviewer);
    const decide = (id: string) => approve(survivor, reviewer, id);
    const asked = () =>
      approvalAsked(survivor, reviewer, (approval) => approval.tool === 'fx__write_marker', WITHIN);
    const doomed = await rig.start();
    const { client, close } = await sessionOwnedBy(doomed);
    try {
      // Asking makes the reviewer a connected approver, so calls wait for a person.
      await approvals();
      const pending = failureOf(client.call('fx__write_marker', { path: marker }));
      const id = await asked();
      const killedAt = await killed(doomed);
      const failure = await pending;
      const failedAfter = performance.now() - killedAt;
      expect(failure).toContain('stopped before it answered');
      expect(failure).toContain('Retry it');
      const adoptedAfter = await servedAgain(client, killedAt);
      // The replica that noticed the death closed the approval: nobody can approve it now.
      const closed = await eventually(async () => {
        const [found] = (await audit.approvalHistory({ limit: 50 })).filter((approval) => approval.id === id);
        if (found?.status !== 'refused') throw new Error(`approval ${id} is ${found?.status}`);
        return found;
      }, WITHIN);
      expect(closed).toMatchObject({
        decidedBy: 'toolmesh',
        decisionReason: expect.stringMatching(/stopped/),
      });
      const late = await decide(id);
      expect(late.status).toBe(404);
      expect((await approvals()).map((approval) => approval.id)).not.toContain(id);
      const [record] = await eventually(async () => {
        const found = await cutOffRecords('fx__write_marker');
        if (found.length === 0) throw new Error('no cut-off record yet');
        return found;
      }, WITHIN);
      expect(record).toMatchObject({
        outcome: 'cutOff',
        approval: 'refused',
        error: expect.stringMatching(/waited for approval: it did not run/),
      });
      // Nothing ran it: no side effect, even after another call of the session went through.
      expect(resultText(await client.call('echo__echo', { text: 'later' }))).toBe('later');
      expect(existsSync(marker)).toBe(false);
      // The same call asked again on the replica that took the session over, and approved, runs once:
      // the side effect this test looks for is one it would see.
      const again = client.call('fx__write_marker', { path: marker });
      expect((await decide(await asked())).status).toBe(200);
      expect(resultText(await again)).toBe(`wrote ${marker}`);
      expect(readFileSync(marker, 'utf8')).toBe('fx ran\n');
      report('with an approval pending', {
        'in-flight call failed after': failedAfter,
        'session served again after': adoptedAfter,
      });
    } finally {
      await close();
    }
  });
});
