import { spawn } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AggregatorState, NewApproval } from '../src/state/state.js';
import { waitForDecision } from '../src/state/wait-for-decision.js';
import { auditRecord } from './audit-record-fixture.js';
import { BACKENDS, newBackend, type StateBackend } from './state-backends.js';

const RACER = fileURLToPath(new URL('./fixtures/decide-racer.mjs', import.meta.url));

interface Racer {
  ready: Promise<void>;
  go(): void;
  won: Promise<string[]>;
}

/** A child process that opens the same store (the built toolmesh) and, on go, tries to decide each id. */
function racer(settings: Record<string, string>, ids: string[], as: string): Racer {
  const child = spawn(process.execPath, [RACER, JSON.stringify({ settings, ids, as })], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk;
    if (output.startsWith('ready\n')) markReady();
  });
  const won = new Promise<string[]>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(output.slice('ready\n'.length)) as string[])
        : reject(new Error(`racer exited ${code}`)),
    );
  });
  return { ready, won, go: () => child.stdin.write('go\n') };
}

const T0 = 1_800_000_000_000;

function request(overrides: Partial<NewApproval> = {}): NewApproval {
  return {
    session: 's1',
    identity: 'agent-1',
    mode: 'careful',
    tool: 'fs__copy_file',
    server: 'fs',
    arguments: { source: 'a', destination: 'b' },
    reason: 'mode careful asks for approval of worktreeWrite',
    channel: 'approver',
    expiresAt: T0 + 60_000,
    ...overrides,
  };
}

const never = () => new AbortController().signal;

describe.each(BACKENDS)('%s state', (backendName) => {
  let backend: StateBackend;
  let clock: number;
  const open = (): Promise<AggregatorState> => backend.open();

  beforeEach(() => {
    clock = T0;
    backend = newBackend(backendName, () => clock);
  });
  afterEach(async () => {
    await backend.dispose();
  });

  describe('sessions', () => {
    it('keep a session, its mode changes and its end, across a reopen', async () => {
      const state = await open();
      await state.saveSession({ id: 's1', mode: 'plan', transport: 'http', workspace: 'api', startedAt: T0 });
      await state.saveSession({ id: 's2', mode: 'chat', transport: 'stdio', startedAt: T0 + 1 });
      await state.setSessionMode('s1', 'chat');
      await state.endSession('s1', T0 + 5);
      await state.close();
      const reopened = await open();
      expect(await reopened.session('s1')).toEqual({
        id: 's1',
        mode: 'chat',
        transport: 'http',
        workspace: 'api',
        startedAt: T0,
        endedAt: T0 + 5,
      });
      expect(await reopened.session('s2')).toEqual({
        id: 's2',
        mode: 'chat',
        transport: 'stdio',
        startedAt: T0 + 1,
      });
      expect(await reopened.session('nope')).toBeUndefined();
    });
  });

  describe('todo lists', () => {
    it('are replaced whole, kept per session, and seen whole by another process', async () => {
      const state = await open();
      const other = await open();
      expect(await state.readTodos('s1')).toEqual([]);
      await state.writeTodos('s1', [
        { content: 'one', status: 'pending' },
        { content: 'two', status: 'completed' },
      ]);
      await state.writeTodos('s2', [{ content: 'other', status: 'pending' }]);
      await state.writeTodos('s1', [{ content: 'three', status: 'in_progress', activeForm: 'Doing three' }]);
      expect(await other.readTodos('s1')).toEqual([
        { content: 'three', status: 'in_progress', activeForm: 'Doing three' },
      ]);
      expect(await other.readTodos('s2')).toEqual([{ content: 'other', status: 'pending' }]);
      await state.writeTodos('s1', []);
      expect(await other.readTodos('s1')).toEqual([]);
    });
  });

  describe('approvals', () => {
    it('open pending under unguessable ids and are listed oldest first, expired ones left out', async () => {
      const state = await open();
      const first = await state.openApproval(request({ expiresAt: T0 + 1000 }));
      clock = T0 + 10;
      const second = await state.openApproval(request({ tool: 'fs__apply_patch', expiresAt: T0 + 5000 }));
      expect(first.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(second.id).not.toBe(first.id);
      expect(first).toEqual({
        ...request({ expiresAt: T0 + 1000 }),
        id: first.id,
        status: 'pending',
        createdAt: T0,
      });
      expect(await state.approval(first.id)).toEqual(first);
      expect((await state.pendingApprovals(T0)).map((record) => record.id)).toEqual([first.id, second.id]);
      expect((await state.pendingApprovals(T0 + 1000)).map((record) => record.id)).toEqual([second.id]);
      expect(await state.pendingApprovals(T0 + 5000)).toEqual([]);
      expect(await state.approval('no-such-id')).toBeUndefined();
    });

    it('are decided once: a second decision and an unknown id change nothing', async () => {
      const state = await open();
      const record = await state.openApproval(request());
      const decided = await state.decideApproval(
        record.id,
        { status: 'approved', decidedBy: 'ana', reason: 'fine' },
        T0 + 7,
      );
      expect(decided).toEqual({
        ...record,
        status: 'approved',
        decidedBy: 'ana',
        decisionReason: 'fine',
        decidedAt: T0 + 7,
      });
      expect(
        await state.decideApproval(record.id, { status: 'denied', decidedBy: 'bo' }, T0 + 8),
      ).toBeUndefined();
      expect(await state.approval(record.id)).toEqual(decided);
      expect(await state.pendingApprovals(T0 + 8)).toEqual([]);
      expect(
        await state.decideApproval('no-such-id', { status: 'approved', decidedBy: 'ana' }, T0),
      ).toBeUndefined();
    });

    it('take no verdict from a person once expired, but let toolmesh close them', async () => {
      const state = await open();
      const late = await state.openApproval(request({ expiresAt: T0 + 1000 }));
      for (const status of ['approved', 'denied'] as const)
        expect(await state.decideApproval(late.id, { status, decidedBy: 'ana' }, T0 + 1000)).toBeUndefined();
      expect(
        await state.decideApproval(late.id, { status: 'timedOut', decidedBy: 'toolmesh' }, T0 + 1000),
      ).toMatchObject({ status: 'timedOut', decidedBy: 'toolmesh', decidedAt: T0 + 1000 });
    });

    it('let exactly one of two processes racing to decide win, every time', async () => {
      const one = await open();
      const other = await open();
      for (let round = 0; round < 20; round++) {
        const record = await one.openApproval(request());
        const [first, second] = round % 2 === 0 ? [one, other] : [other, one];
        const outcomes = await Promise.all([
          first.decideApproval(record.id, { status: 'approved', decidedBy: 'first' }, T0),
          second.decideApproval(record.id, { status: 'denied', decidedBy: 'second' }, T0),
        ]);
        const winners = outcomes.filter((outcome) => outcome !== undefined);
        expect(winners).toHaveLength(1);
        expect(await other.approval(record.id)).toEqual(winners[0]);
      }
    });

    it('keep every decision in the history, newest first, from a given time', async () => {
      const state = await open();
      for (const [at, status] of [
        [T0, 'approved'],
        [T0 + 10, 'denied'],
        [T0 + 20, 'refused'],
        [T0 + 30, 'declined'],
      ] as const) {
        clock = at;
        const record = await state.openApproval(request({ tool: status }));
        await state.decideApproval(record.id, { status, decidedBy: 'toolmesh' }, at);
      }
      clock = T0 + 40;
      await state.openApproval(request({ tool: 'still waiting' }));
      const history = await (await open()).approvalHistory({ limit: 10 });
      expect(history.map((record) => [record.tool, record.status])).toEqual([
        ['still waiting', 'pending'],
        ['declined', 'declined'],
        ['refused', 'refused'],
        ['denied', 'denied'],
        ['approved', 'approved'],
      ]);
      expect((await state.approvalHistory({ limit: 2 })).map((record) => record.tool)).toEqual([
        'still waiting',
        'declined',
      ]);
      expect(
        (await state.approvalHistory({ since: T0 + 20, limit: 10 })).map((record) => record.tool),
      ).toEqual(['still waiting', 'declined', 'refused']);
      expect(await state.approvalHistory({ since: T0 + 41, limit: 10 })).toEqual([]);
    });
  });

  describe('waiting for a decision', () => {
    it('sees a decision written by another process sharing the file', async () => {
      const waiting = await open();
      const deciding = await open();
      const record = await waiting.openApproval(request());
      const decision = waitForDecision(waiting, record.id, { signal: never(), pollMs: 5, now: () => clock });
      await deciding.decideApproval(record.id, { status: 'approved', decidedBy: 'elsewhere' }, T0 + 1);
      expect(await decision).toMatchObject({ status: 'approved', decidedBy: 'elsewhere', decidedAt: T0 + 1 });
    });

    it('records an expiry as timedOut, decided by toolmesh', async () => {
      const state = await open();
      const record = await state.openApproval(request({ expiresAt: T0 + 1000 }));
      const decision = waitForDecision(state, record.id, { signal: never(), pollMs: 5, now: () => clock });
      clock = T0 + 1000;
      expect(await decision).toMatchObject({
        status: 'timedOut',
        decidedBy: 'toolmesh',
        decidedAt: T0 + 1000,
      });
      expect((await (await open()).approval(record.id))?.status).toBe('timedOut');
    });

    it('records a cancelled call as declined, at once, and leaves no listener behind', async () => {
      const state = await open();
      const record = await state.openApproval(request());
      const cancel = new AbortController();
      // An hour-long poll: only the abort can end this wait before the test times out.
      const decision = waitForDecision(state, record.id, { signal: cancel.signal, pollMs: 3_600_000 });
      cancel.abort();
      expect(await decision).toMatchObject({
        status: 'declined',
        decidedBy: 'toolmesh',
        decisionReason: 'the call was cancelled',
      });
      expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(0);
    });

    it('declines at once when the call was cancelled before the wait began', async () => {
      const state = await open();
      const record = await state.openApproval(request());
      const decision = await waitForDecision(state, record.id, {
        signal: AbortSignal.abort(),
        pollMs: 3_600_000,
      });
      expect(decision.status).toBe('declined');
    });

    it('keeps no abort listener per poll while it waits', async () => {
      const state = await open();
      const deciding = await open();
      const record = await state.openApproval(request());
      const signal = never();
      let polls = 0;
      const counting = new Proxy(state, {
        get(target, key) {
          if (key === 'approval') polls++;
          const value = Reflect.get(target, key);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const decision = waitForDecision(counting, record.id, { signal, pollMs: 1, now: () => clock });
      while (polls < 20) await new Promise((resolve) => setImmediate(resolve));
      expect(getEventListeners(signal, 'abort').length).toBeLessThanOrEqual(1);
      await deciding.decideApproval(record.id, { status: 'denied', decidedBy: 'ana' }, T0);
      expect((await decision).status).toBe('denied');
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    });
  });

  describe('approvers', () => {
    it('are counted by their last heartbeat, which a late, older beat never moves back', async () => {
      const state = await open();
      await state.touchApprover('cli:ana@box', T0 + 8);
      await state.touchApprover('http:127.0.0.1', T0 + 10_000);
      await state.touchApprover('cli:ana@box', T0);
      expect(await state.approversSeenSince(T0 + 9)).toEqual(['http:127.0.0.1']);
      expect((await (await open()).approversSeenSince(T0 + 8)).sort()).toEqual([
        'cli:ana@box',
        'http:127.0.0.1',
      ]);
      expect(await state.approversSeenSince(T0 + 10_001)).toEqual([]);
    });
  });

  describe('the audit', () => {
    it('reads from one handle what another wrote, filtered, newest first, and prunes for all', async () => {
      const writer = await open();
      const reader = await open();
      await writer.recordAudit(auditRecord({ time: T0 }));
      await writer.recordAudit(
        auditRecord({ time: T0 + 1, tool: 'git__commit', server: 'git', identity: 'bo' }),
      );
      await writer.recordAudit(
        auditRecord({
          time: T0 + 2,
          tool: 'fs__write_file',
          outcome: 'refused',
          workspace: 'web',
          error: 'no',
        }),
      );
      expect((await reader.auditRecords({ limit: 10 })).map((record) => record.time)).toEqual([
        T0 + 2,
        T0 + 1,
        T0,
      ]);
      expect(await reader.auditRecords({ limit: 10, tool: 'fs__w*' })).toEqual([
        auditRecord({
          time: T0 + 2,
          tool: 'fs__write_file',
          outcome: 'refused',
          workspace: 'web',
          error: 'no',
        }),
      ]);
      expect((await reader.auditRecords({ limit: 10, identity: 'bo' })).map((record) => record.tool)).toEqual(
        ['git__commit'],
      );
      expect(
        (await reader.auditRecords({ limit: 1, offset: 1, since: T0 })).map((record) => record.time),
      ).toEqual([T0 + 1]);
      expect(await reader.auditRecords({ limit: 10, tool: 'fs__[w]*' })).toEqual([]);
      await writer.recordAudit(auditRecord({ time: T0 + 3, workspace: 'api' }));
      // A reader limited to some workspaces: theirs only, and no record of none.
      const timesIn = async (workspaces: string[], workspace?: string) =>
        (await reader.auditRecords({ limit: 10, workspaces, ...(workspace && { workspace }) })).map(
          (record) => record.time,
        );
      expect(await timesIn(['web'])).toEqual([T0 + 2]);
      expect(await timesIn(['api', 'web'])).toEqual([T0 + 3, T0 + 2]);
      expect(await timesIn(['web'], 'api')).toEqual([]);
      expect(await timesIn([])).toEqual([]);
      expect(await writer.pruneAudit(T0 + 2)).toBe(2);
      expect((await reader.auditRecords({ limit: 10 })).map((record) => record.time)).toEqual([
        T0 + 3,
        T0 + 2,
      ]);
    });
  });

  describe('health', () => {
    it('names each shared connection and how it answers; SQLite has none', async () => {
      const health = await (await open()).health();
      if (backendName === 'sqlite') expect(health).toEqual({});
      else
        expect(health.redis).toMatchObject({ ok: true, detail: expect.stringMatching(/^PONG from redis:/) });
      if (backendName === 'redis+postgres')
        expect(health.postgres).toMatchObject({
          ok: true,
          detail: expect.stringMatching(/select 1 .*schema/),
        });
      else expect(health.postgres).toBeUndefined();
    });
  });

  describe('deciding from two processes', () => {
    it('lets exactly one of two racing processes decide each approval', async () => {
      const state = await open();
      const ids: string[] = [];
      for (let index = 0; index < 40; index++) ids.push((await state.openApproval(request())).id);
      const racers = [
        racer(backend.settings, ids, 'first'),
        racer(backend.settings, [...ids].reverse(), 'second'),
      ];
      await Promise.all(racers.map((one) => one.ready));
      for (const one of racers) one.go();
      const [first = [], second = []] = await Promise.all(racers.map((one) => one.won));
      expect([...first, ...second].sort()).toEqual([...ids].sort());
      for (const id of ids) {
        const decided = await state.approval(id);
        expect(decided?.decidedBy).toBe(first.includes(id) ? 'first' : 'second');
      }
      const history = await state.approvalHistory({ limit: 100 });
      expect(history.filter((record) => ids.includes(record.id))).toHaveLength(40);
    });
  });
});
