import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openState } from '../src/state/open-state.js';
import type { AggregatorState, NewApproval } from '../src/state/state.js';
import { StateUnavailableError } from '../src/state/state-unavailable.js';
import { waitForDecision } from '../src/state/wait-for-decision.js';
import { auditRecord } from './audit-record-fixture.js';
import { PrivateRedis } from './private-redis.js';
import { dropSchema, POSTGRES_URL } from './state-backends.js';

/** Until `check` passes: a reconnect takes as long as it takes, the test's timeout bounds it. */
async function eventually(check: () => Promise<unknown>): Promise<void> {
  for (;;) {
    try {
      await check();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

function request(expiresAt: number): NewApproval {
  return {
    session: 's1',
    identity: 'agent-1',
    mode: 'careful',
    tool: 'fs__write_file',
    server: 'fs',
    arguments: { path: 'a.txt' },
    reason: 'mode careful asks for approval of worktreeWrite',
    channel: 'approver',
    expiresAt,
  };
}

describe('Redis stopped and restarted empty', () => {
  let redis: PrivateRedis;
  let schema: string;
  let state: AggregatorState;
  let other: AggregatorState;

  beforeEach(async () => {
    redis = await PrivateRedis.start();
    schema = `toolmesh_fault_${process.pid}_${randomBytes(4).toString('hex')}`;
    const settings = { redis: redis.url, postgres: POSTGRES_URL, postgresSchema: schema };
    state = await openState(settings);
    other = await openState(settings);
  });
  afterEach(async () => {
    await Promise.all([state.close(), other.close()]);
    await redis.stop();
    await dropSchema(schema);
  });

  it('fails every live operation with a clear error, keeps the audit, and serves again without deciding twice', async () => {
    const now = Date.now();
    const decided = await state.openApproval(request(now + 60_000));
    await other.decideApproval(decided.id, { status: 'approved', decidedBy: 'ana' }, now);
    const pending = await state.openApproval(request(now + 60_000));
    await state.recordAudit(auditRecord({ time: now, tool: 'before' }));

    await redis.stop();
    const unavailable =
      /Redis at redis:\/\/127\.0\.0\.1:\d+\/? did not answer .*so nothing was done.*retry shortly/;
    for (const operation of [
      () => state.session('s1'),
      () => state.openApproval(request(now + 60_000)),
      () => state.decideApproval(pending.id, { status: 'approved', decidedBy: 'bo' }, now),
      () => state.pendingApprovals(now),
      () => state.writeTodos('s1', []),
      () => state.touchApprover('cli:bo', now),
    ]) {
      const error = await operation().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(StateUnavailableError);
      expect(error).toMatchObject({
        status: 503,
        store: 'redis',
        message: expect.stringMatching(unavailable),
      });
    }
    // A waiter does not take a missing answer for a decision: the call fails, it never runs.
    await expect(
      waitForDecision(state, pending.id, { signal: new AbortController().signal }),
    ).rejects.toBeInstanceOf(StateUnavailableError);
    expect((await state.health()).redis).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/does not answer/),
    });
    // The audit lives in PostgreSQL: it keeps recording while Redis is down.
    await state.recordAudit(auditRecord({ time: now + 1, tool: 'during' }));

    await redis.start();
    await eventually(() => state.session('s1'));
    await eventually(() => other.session('s1'));
    // Redis came back empty: the pending approval is gone, and nobody can decide it now.
    expect(await state.approval(pending.id)).toBeUndefined();
    expect(
      await other.decideApproval(pending.id, { status: 'approved', decidedBy: 'bo' }, now),
    ).toBeUndefined();
    await expect(
      waitForDecision(state, pending.id, { signal: new AbortController().signal }),
    ).rejects.toThrow(/not in toolmesh's state.*Retry the call/);
    // The decision made before the restart was archived once, with who made it.
    const history = await other.approvalHistory({ limit: 10 });
    expect(history.filter((record) => record.id === decided.id)).toEqual([
      expect.objectContaining({ status: 'approved', decidedBy: 'ana' }),
    ]);
    // Serving resumes: a new approval is opened, decided once, and woken on.
    const fresh = await state.openApproval(request(Date.now() + 60_000));
    const waiting = waitForDecision(state, fresh.id, { signal: new AbortController().signal });
    await eventually(async () => {
      expect(
        await other.decideApproval(fresh.id, { status: 'denied', decidedBy: 'bo' }, Date.now()),
      ).toBeDefined();
    });
    expect(await waiting).toMatchObject({ status: 'denied', decidedBy: 'bo' });
    await state.recordAudit(auditRecord({ time: now + 2, tool: 'after' }));
    expect((await other.auditRecords({ limit: 10 })).map((record) => record.tool)).toEqual([
      'after',
      'during',
      'before',
    ]);
  });

  it('fails a command on a stalled Redis instead of waiting forever, and serves once it answers', async () => {
    await state.writeTodos('s1', [{ content: 'kept', status: 'pending' }]);
    redis.pause();
    try {
      await expect(state.readTodos('s1')).rejects.toMatchObject({
        store: 'redis',
        message: expect.stringMatching(/did not answer \(Command timed out\)/),
      });
    } finally {
      redis.resume();
    }
    await eventually(async () => {
      expect(await state.readTodos('s1')).toEqual([{ content: 'kept', status: 'pending' }]);
    });
  });

  it('refuses to start on a Redis that is not there, saying what to check', async () => {
    await redis.stop();
    await expect(openState({ redis: redis.url })).rejects.toThrow(
      /cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+\/? for toolmesh's shared state: .*ECONNREFUSED.*check that Redis runs/,
    );
  });
});
