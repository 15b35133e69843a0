import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApprovalsCommandOptions, approvalsCommand } from '../src/cli/approvals.js';
import { SqliteState } from '../src/state/sqlite-state.js';
import type { NewApproval } from '../src/state/state.js';
import { until } from './harness.js';

const T0 = 1_800_000_000_000;

let folder: string;
let state: SqliteState;
let clock: number;
let printed: string[];

beforeEach(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-approvals-'));
  clock = T0;
  state = SqliteState.open(path.join(folder, 'state.sqlite'), { now: () => clock });
  printed = [];
});
afterEach(async () => {
  await state.close();
  rmSync(folder, { recursive: true, force: true });
});

function run(args: string[], options: Partial<ApprovalsCommandOptions> = {}): Promise<number> {
  return approvalsCommand(args, {
    state,
    print: (line) => printed.push(line),
    now: () => clock,
    pollMs: 1,
    ...options,
  });
}

function open(overrides: Partial<NewApproval> = {}) {
  return state.openApproval({
    session: 's1',
    identity: 'agent-1',
    mode: 'careful',
    tool: 'fs__copy_file',
    server: 'fs',
    arguments: { source: 'notes.txt', destination: 'copy.txt' },
    reason: 'mode careful asks for approval of the action class worktreeWrite',
    channel: 'approver',
    expiresAt: T0 + 60_000,
    ...overrides,
  });
}

describe('toolmesh approvals (the list)', () => {
  it('says when nothing is pending', async () => {
    expect(await run([])).toBe(0);
    expect(printed).toEqual(['no approval is pending']);
  });

  it('shows id, age, tool, server, mode and reason, then the arguments on one line', async () => {
    const record = await open({ arguments: { path: 'a.txt', token: 'hunter2' } });
    clock = T0 + 42_000;
    expect(await run([])).toBe(0);
    expect(printed).toEqual([
      `${record.id}   42s  fs__copy_file (fs, careful mode): mode careful asks for approval of the action class worktreeWrite`,
      '    {"path":"a.txt","token":"[redacted]"}',
    ]);
  });

  it('leaves out what expired or was decided', async () => {
    await open({ expiresAt: T0 + 10 });
    const decided = await open();
    await state.decideApproval(decided.id, { status: 'denied', decidedBy: 'ana' }, T0);
    clock = T0 + 10;
    await run([]);
    expect(printed).toEqual(['no approval is pending']);
  });

  it('prints the pending approvals as JSON with --json', async () => {
    const record = await open();
    expect(await run(['--json'])).toBe(0);
    expect(JSON.parse(printed.join('\n'))).toEqual([record]);
  });
});

describe('toolmesh approvals approve|deny', () => {
  it('approves and denies by id, with a reason, as the CLI user', async () => {
    const first = await open();
    const second = await open({ tool: 'fs__apply_patch' });
    expect(await run(['approve', first.id])).toBe(0);
    expect(await run(['deny', second.id, '--reason', 'too broad'])).toBe(0);
    expect(printed).toEqual(['approved: fs__copy_file (fs)', 'denied: fs__apply_patch (fs)']);
    expect(await state.approval(first.id)).toMatchObject({
      status: 'approved',
      decidedBy: `cli:${os.userInfo().username}`,
      decidedAt: T0,
    });
    expect(await state.approval(second.id)).toMatchObject({ status: 'denied', decisionReason: 'too broad' });
  });

  it('fails with exit code 1 for an id already decided, saying by whom and what to do', async () => {
    const record = await open();
    await state.decideApproval(record.id, { status: 'approved', decidedBy: 'http:10.0.0.2' }, T0);
    expect(await run(['deny', record.id])).toBe(1);
    expect(printed).toEqual([
      `approval ${record.id} is not pending: it was already approved by http:10.0.0.2 and cannot be decided again. Run toolmesh approvals to list the pending ones.`,
    ]);
    expect((await state.approval(record.id))?.status).toBe('approved');
  });

  it('fails with exit code 1 for an expired id', async () => {
    const record = await open({ expiresAt: T0 + 10 });
    clock = T0 + 10;
    expect(await run(['approve', record.id])).toBe(1);
    expect(printed[0]).toMatch(
      new RegExp(`^approval ${record.id} is not pending: it expired, so fs__copy_file will not run`),
    );
    expect((await state.approval(record.id))?.status).toBe('pending');
  });

  it('fails with exit code 1 for an unknown id', async () => {
    expect(await run(['approve', 'no-such-id'])).toBe(1);
    expect(printed[0]).toMatch(
      /^approval no-such-id is not pending: no approval has that id, check it for typos\. Run toolmesh approvals/,
    );
  });

  it('answers misuse with exit code 2 and the usage', async () => {
    expect(await run(['approve'])).toBe(2);
    expect(printed.at(-1)).toMatch(/^usage: toolmesh approvals approve <id>/);
    expect(await run(['deny', 'a', 'b'])).toBe(2);
    expect(await run(['maybe', 'a'])).toBe(2);
    expect(printed.at(-1)).toMatch(/^unknown approvals command "maybe"/);
  });
});

/** The state, with each call to it recorded as [method, ...arguments]. */
function recorded(target: SqliteState): { state: SqliteState; calls: unknown[][] } {
  const calls: unknown[][] = [];
  const proxy = new Proxy(target, {
    get(object, key) {
      const value = Reflect.get(object, key);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push([key, ...args]);
        return value.apply(object, args);
      };
    },
  });
  return { state: proxy, calls };
}

const count = (calls: unknown[][], method: string) => calls.filter(([key]) => key === method).length;

describe('toolmesh approvals --watch', () => {
  it('is a connected approver that prints each new pending approval once, until stopped', async () => {
    const stop = new AbortController();
    const { state: watched, calls } = recorded(state);
    const looks = () => count(calls, 'pendingApprovals');
    const watching = run(['--watch'], { state: watched, signal: stop.signal });
    await until(async () => (await state.approversSeenSince(T0)).length > 0);
    expect(await state.approversSeenSince(T0)).toEqual([`cli:${os.userInfo().username}@${os.hostname()}`]);

    const record = await open();
    await until(() => printed.some((line) => line.startsWith(record.id)));
    const looksWhenShown = looks();
    await until(() => looks() >= looksWhenShown + 5);
    const second = await open({ tool: 'fs__apply_patch' });
    await until(() => printed.some((line) => line.startsWith(second.id)));
    stop.abort();
    expect(await watching).toBe(0);

    expect(printed[0]).toMatch(
      /^watching for approvals as cli:.+; decide with: toolmesh approvals approve\|deny <id>$/,
    );
    expect(printed.filter((line) => line.startsWith(record.id))).toHaveLength(1);
    expect(printed.filter((line) => line.startsWith(second.id))).toHaveLength(1);
  });

  it('heartbeats once per interval of its clock, not on every look', async () => {
    const stop = new AbortController();
    const { state: watched, calls } = recorded(state);
    const looks = () => count(calls, 'pendingApprovals');
    const beats = () => calls.filter(([key]) => key === 'touchApprover').map(([, , at]) => at);
    const watching = run(['--watch'], { state: watched, signal: stop.signal, heartbeatMs: 5000 });
    await until(() => looks() >= 5);
    expect(beats()).toEqual([T0]);
    clock = T0 + 4999;
    const looksBefore = looks();
    await until(() => looks() >= looksBefore + 3);
    expect(beats()).toEqual([T0]);
    clock = T0 + 5000;
    await until(() => beats().length === 2);
    expect(beats()).toEqual([T0, T0 + 5000]);
    stop.abort();
    expect(await watching).toBe(0);
  });
});
