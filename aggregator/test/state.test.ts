import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteState } from '../src/state/sqlite-state.js';
import type { NewApproval } from '../src/state/state.js';
import { waitForDecision } from '../src/state/wait-for-decision.js';

let folder: string;
let file: string;
const opened: SqliteState[] = [];

function open(): SqliteState {
  const state = SqliteState.open(file);
  opened.push(state);
  return state;
}

beforeEach(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-state-'));
  file = path.join(folder, 'state.sqlite');
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((state) => state.close()));
  rmSync(folder, { recursive: true, force: true });
});

const T0 = 1_800_000_000_000;

function request(overrides: Partial<NewApproval> = {}): NewApproval {
  return {
    session: 's1',
    mode: 'chat',
    tool: 'fs__copy_file',
    server: 'fs',
    arguments: { source: 'a', destination: 'b' },
    reason: 'mode careful asks for approval',
    channel: 'approver',
    expiresAt: Date.now() + 60_000,
    ...overrides,
  };
}

describe('sessions and todo lists', () => {
  it('keep a session, its mode changes and its end, across a reopen', async () => {
    const state = open();
    await state.saveSession({ id: 's1', mode: 'plan', transport: 'http', startedAt: T0 });
    await state.setSessionMode('s1', 'chat');
    await state.endSession('s1', T0 + 5);
    await state.close();
    expect(await open().session('s1')).toEqual({
      id: 's1',
      mode: 'chat',
      transport: 'http',
      startedAt: T0,
      endedAt: T0 + 5,
    });
    expect(await open().session('nope')).toBeUndefined();
  });

  it('replace a session’s whole todo list and keep sessions apart', async () => {
    const state = open();
    expect(await state.readTodos('s1')).toEqual([]);
    await state.writeTodos('s1', [
      { content: 'one', status: 'pending' },
      { content: 'two', status: 'completed' },
    ]);
    await state.writeTodos('s1', [{ content: 'three', status: 'in_progress', activeForm: 'Doing three' }]);
    await state.writeTodos('s2', [{ content: 'other', status: 'pending' }]);
    expect(await state.readTodos('s1')).toEqual([
      { content: 'three', status: 'in_progress', activeForm: 'Doing three' },
    ]);
    expect(await open().readTodos('s2')).toEqual([{ content: 'other', status: 'pending' }]);
  });
});

describe('approvals', () => {
  it('are opened pending under unguessable ids and listed oldest first, expired ones left out', async () => {
    const state = open();
    const first = await state.openApproval(request({ expiresAt: T0 + 1000 }));
    const second = await state.openApproval(request({ tool: 'fs__apply_patch', expiresAt: T0 + 5000 }));
    expect(first.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(first).toMatchObject({ status: 'pending', arguments: { source: 'a', destination: 'b' } });
    expect((await state.pendingApprovals(T0)).map((record) => record.id)).toEqual([first.id, second.id]);
    expect((await state.pendingApprovals(T0 + 2000)).map((record) => record.id)).toEqual([second.id]);
  });

  it('are decided once: a second decision, an expired one and an unknown id change nothing', async () => {
    const state = open();
    const record = await state.openApproval(request({ expiresAt: T0 + 1000 }));
    const decided = await state.decideApproval(
      record.id,
      { status: 'approved', decidedBy: 'ana', reason: 'fine' },
      T0,
    );
    expect(decided).toMatchObject({
      status: 'approved',
      decidedBy: 'ana',
      decisionReason: 'fine',
      decidedAt: T0,
    });
    expect(await state.decideApproval(record.id, { status: 'denied', decidedBy: 'bo' }, T0)).toBeUndefined();
    const late = await state.openApproval(request({ expiresAt: T0 + 1000 }));
    expect(
      await state.decideApproval(late.id, { status: 'approved', decidedBy: 'ana' }, T0 + 1000),
    ).toBeUndefined();
    // toolmesh closes what expired itself.
    expect(
      await state.decideApproval(late.id, { status: 'timedOut', decidedBy: 'toolmesh' }, T0 + 1000),
    ).toMatchObject({
      status: 'timedOut',
    });
    expect(
      await state.decideApproval('no-such-id', { status: 'approved', decidedBy: 'ana' }, T0),
    ).toBeUndefined();
  });

  it('let exactly one of two processes racing to decide win', async () => {
    const one = open();
    const other = open();
    const record = await one.openApproval(request());
    const outcomes = await Promise.all([
      one.decideApproval(record.id, { status: 'approved', decidedBy: 'one' }, Date.now()),
      other.decideApproval(record.id, { status: 'denied', decidedBy: 'other' }, Date.now()),
    ]);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect((await one.approval(record.id))?.decidedBy).toBe(outcomes.find(Boolean)?.decidedBy);
  });

  it('keep every decision in the history, newest first', async () => {
    const state = open();
    for (const status of ['approved', 'denied', 'refused'] as const) {
      const record = await state.openApproval(request({ tool: status }));
      await state.decideApproval(record.id, { status, decidedBy: 'toolmesh' }, Date.now());
    }
    const history = await state.approvalHistory({ limit: 10 });
    expect(history.map((record) => [record.tool, record.status])).toEqual([
      ['refused', 'refused'],
      ['denied', 'denied'],
      ['approved', 'approved'],
    ]);
    expect(await state.approvalHistory({ limit: 1 })).toHaveLength(1);
    expect(await state.approvalHistory({ since: Date.now() + 60_000, limit: 10 })).toEqual([]);
  });
});

describe('waiting for a decision', () => {
  it('sees a decision written by another process sharing the file', async () => {
    const waiting = open();
    const deciding = open();
    const record = await waiting.openApproval(request());
    const decision = waitForDecision(waiting, record.id, {
      signal: new AbortController().signal,
      pollMs: 10,
    });
    await deciding.decideApproval(record.id, { status: 'approved', decidedBy: 'elsewhere' }, Date.now());
    expect(await decision).toMatchObject({ status: 'approved', decidedBy: 'elsewhere' });
  });

  it('records an expiry as timedOut', async () => {
    const state = open();
    let clock = T0;
    const record = await state.openApproval(request({ expiresAt: T0 + 1000 }));
    const decision = waitForDecision(state, record.id, {
      signal: new AbortController().signal,
      pollMs: 5,
      now: () => clock,
    });
    clock = T0 + 1000;
    expect(await decision).toMatchObject({ status: 'timedOut', decidedBy: 'toolmesh' });
    expect((await state.approval(record.id))?.status).toBe('timedOut');
  });

  it('records a cancelled call as declined, and returns at once', async () => {
    const state = open();
    const record = await state.openApproval(request());
    const cancel = new AbortController();
    const decision = waitForDecision(state, record.id, { signal: cancel.signal, pollMs: 60_000 });
    cancel.abort();
    expect(await decision).toMatchObject({ status: 'declined', decisionReason: 'the call was cancelled' });
  });
});

describe('approvers and files', () => {
  it('count approvers by their last heartbeat', async () => {
    const state = open();
    await state.touchApprover('cli:ana@box', T0 + 8);
    await state.touchApprover('http:127.0.0.1', T0 + 10_000);
    await state.touchApprover('cli:ana@box', T0); // a late, older beat never moves one back
    expect(await state.approversSeenSince(T0 + 9)).toEqual(['http:127.0.0.1']);
    expect((await state.approversSeenSince(T0 + 8)).sort()).toEqual(['cli:ana@box', 'http:127.0.0.1']);
  });

  it('refuse a file that is not a database, naming it and saying what to do', () => {
    writeFileSync(file, 'this is not sqlite, just text that fills the first page of the file'.repeat(100));
    expect(() => SqliteState.open(file)).toThrow(
      new RegExp(
        `cannot open toolmesh's state at ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*Move the file aside`,
      ),
    );
  });
});
