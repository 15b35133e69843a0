import { getEventListeners } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '@toolmesh/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openState } from '../src/state/open-state.js';
import { SqliteState } from '../src/state/sqlite-state.js';
import type { AggregatorState, NewApproval } from '../src/state/state.js';
import { waitForDecision } from '../src/state/wait-for-decision.js';

const T0 = 1_800_000_000_000;

let folder: string;
let file: string;
let clock: number;
const opened: AggregatorState[] = [];

/** One more handle on the shared file, as another aggregator process would hold. */
function open(): SqliteState {
  const state = SqliteState.open(file, { now: () => clock });
  opened.push(state);
  return state;
}

beforeEach(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-state-'));
  file = path.join(folder, 'state.sqlite');
  clock = T0;
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((state) => state.close()));
  rmSync(folder, { recursive: true, force: true });
});

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
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('sessions', () => {
  it('keep a session, its mode changes and its end, across a reopen', async () => {
    const state = open();
    await state.saveSession({ id: 's1', mode: 'plan', transport: 'http', workspace: 'api', startedAt: T0 });
    await state.saveSession({ id: 's2', mode: 'chat', transport: 'stdio', startedAt: T0 + 1 });
    await state.setSessionMode('s1', 'chat');
    await state.endSession('s1', T0 + 5);
    await state.close();
    const reopened = open();
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
    const state = open();
    const other = open();
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
    const state = open();
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
    const state = open();
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
    const state = open();
    const late = await state.openApproval(request({ expiresAt: T0 + 1000 }));
    for (const status of ['approved', 'denied'] as const)
      expect(await state.decideApproval(late.id, { status, decidedBy: 'ana' }, T0 + 1000)).toBeUndefined();
    expect(
      await state.decideApproval(late.id, { status: 'timedOut', decidedBy: 'toolmesh' }, T0 + 1000),
    ).toMatchObject({ status: 'timedOut', decidedBy: 'toolmesh', decidedAt: T0 + 1000 });
  });

  it('let exactly one of two processes racing to decide win, every time', async () => {
    const one = open();
    const other = open();
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
    const state = open();
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
    const history = await open().approvalHistory({ limit: 10 });
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
    expect((await state.approvalHistory({ since: T0 + 20, limit: 10 })).map((record) => record.tool)).toEqual(
      ['still waiting', 'declined', 'refused'],
    );
    expect(await state.approvalHistory({ since: T0 + 41, limit: 10 })).toEqual([]);
  });
});

describe('waiting for a decision', () => {
  it('sees a decision written by another process sharing the file', async () => {
    const waiting = open();
    const deciding = open();
    const record = await waiting.openApproval(request());
    const decision = waitForDecision(waiting, record.id, { signal: never(), pollMs: 5, now: () => clock });
    await deciding.decideApproval(record.id, { status: 'approved', decidedBy: 'elsewhere' }, T0 + 1);
    expect(await decision).toMatchObject({ status: 'approved', decidedBy: 'elsewhere', decidedAt: T0 + 1 });
  });

  it('records an expiry as timedOut, decided by toolmesh', async () => {
    const state = open();
    const record = await state.openApproval(request({ expiresAt: T0 + 1000 }));
    const decision = waitForDecision(state, record.id, { signal: never(), pollMs: 5, now: () => clock });
    clock = T0 + 1000;
    expect(await decision).toMatchObject({ status: 'timedOut', decidedBy: 'toolmesh', decidedAt: T0 + 1000 });
    expect((await open().approval(record.id))?.status).toBe('timedOut');
  });

  it('records a cancelled call as declined, at once, and leaves no listener behind', async () => {
    const state = open();
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
    const state = open();
    const record = await state.openApproval(request());
    const decision = await waitForDecision(state, record.id, {
      signal: AbortSignal.abort(),
      pollMs: 3_600_000,
    });
    expect(decision.status).toBe('declined');
  });

  it('keeps no abort listener per poll while it waits', async () => {
    const state = open();
    const deciding = open();
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
    const state = open();
    await state.touchApprover('cli:ana@box', T0 + 8);
    await state.touchApprover('http:127.0.0.1', T0 + 10_000);
    await state.touchApprover('cli:ana@box', T0);
    expect(await state.approversSeenSince(T0 + 9)).toEqual(['http:127.0.0.1']);
    expect((await open().approversSeenSince(T0 + 8)).sort()).toEqual(['cli:ana@box', 'http:127.0.0.1']);
    expect(await state.approversSeenSince(T0 + 10_001)).toEqual([]);
  });
});

describe('the state file', () => {
  it('keeps everything across a reopen', async () => {
    const state = open();
    await state.writeTodos('s1', [{ content: 'one', status: 'pending' }]);
    const record = await state.openApproval(request());
    await state.touchApprover('cli:ana@box', T0);
    await state.close();
    const reopened = open();
    expect(await reopened.readTodos('s1')).toEqual([{ content: 'one', status: 'pending' }]);
    expect(await reopened.pendingApprovals(T0)).toEqual([record]);
    expect(await reopened.approversSeenSince(T0)).toEqual(['cli:ana@box']);
    await state.close(); // closing twice is harmless
  });

  it('refuses a file that is not a database, naming it and saying what to do', () => {
    writeFileSync(file, 'this is not sqlite, just text that fills the first page of the file'.repeat(100));
    expect(() => SqliteState.open(file)).toThrow(
      new RegExp(`cannot open toolmesh's state at ${escaped(file)}: .*Move the file aside`),
    );
  });

  it('refuses a path it cannot open as a file, naming it', () => {
    mkdirSync(file);
    expect(() => SqliteState.open(file)).toThrow(
      new RegExp(`cannot open toolmesh's state at ${escaped(file)}: .*set TOOLMESH_DATA_DIR`),
    );
  });

  it('refuses a file written by a newer toolmesh', () => {
    const ninetyNineMigrations = Array.from({ length: 99 }, () => 'SELECT 1;');
    openDatabase(file, ninetyNineMigrations).close();
    expect(() => SqliteState.open(file)).toThrow(
      /schema version 99, newer than this toolmesh knows.*upgrade toolmesh/,
    );
  });

  it('lives by default in <data directory>/aggregator/state.sqlite, in a folder only the user can read', async () => {
    const dataDir = path.join(folder, 'data');
    const state = openState({ dataDir });
    opened.push(state);
    await state.writeTodos('s1', [{ content: 'kept', status: 'pending' }]);
    expect(existsSync(path.join(dataDir, 'aggregator', 'state.sqlite'))).toBe(true);
    expect(statSync(path.join(dataDir, 'aggregator')).mode & 0o777).toBe(0o700);
    const elsewhere = path.join(folder, 'elsewhere', 'mine.sqlite');
    opened.push(openState({ dataDir, file: elsewhere }));
    expect(existsSync(elsewhere)).toBe(true);
  });
});
