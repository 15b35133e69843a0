import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { approvalsCommand } from '../src/cli/approvals.js';
import { SqliteState } from '../src/state/sqlite-state.js';
import { until } from './harness.js';

let folder: string;
let state: SqliteState;
let printed: string[];

beforeEach(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-approvals-'));
  state = SqliteState.open(path.join(folder, 'state.sqlite'));
  printed = [];
});
afterEach(async () => {
  await state.close();
  rmSync(folder, { recursive: true, force: true });
});

const run = (args: string[], signal?: AbortSignal) =>
  approvalsCommand(args, {
    state,
    print: (line) => printed.push(line),
    heartbeatMs: 10,
    ...(signal && { signal }),
  });

function open(tool = 'fs__copy_file') {
  return state.openApproval({
    session: 's1',
    mode: 'careful',
    tool,
    server: 'fs',
    arguments: { source: 'notes.txt', destination: 'copy.txt' },
    reason: 'mode careful asks for approval of the action class worktreeWrite',
    channel: 'approver',
    expiresAt: Date.now() + 60_000,
  });
}

describe('toolmesh approvals', () => {
  it('lists what is pending, with the tool, mode, reason and arguments, or says nothing is', async () => {
    expect(await run([])).toBe(0);
    expect(printed).toEqual(['no approval is pending']);
    const record = await open();
    printed = [];
    expect(await run([])).toBe(0);
    expect(printed[0]).toMatch(
      new RegExp(
        `^${record.id} +\\d+s +fs__copy_file \\(fs, careful mode\\): mode careful asks for approval`,
      ),
    );
    expect(printed[0]).toContain('{"source":"notes.txt","destination":"copy.txt"}');
    printed = [];
    await run(['--json']);
    expect(JSON.parse(printed.join('\n'))).toMatchObject([{ id: record.id, tool: 'fs__copy_file' }]);
  });

  it('approves and denies by id, with a reason, once', async () => {
    const first = await open();
    const second = await open('fs__apply_patch');
    expect(await run(['approve', first.id])).toBe(0);
    expect(await run(['deny', second.id, '--reason', 'too broad'])).toBe(0);
    expect(await state.approval(first.id)).toMatchObject({
      status: 'approved',
      decidedBy: expect.stringMatching(/^cli:/),
    });
    expect(await state.approval(second.id)).toMatchObject({ status: 'denied', decisionReason: 'too broad' });
    printed = [];
    expect(await run(['approve', first.id])).toBe(1);
    expect(printed[0]).toMatch(/is not pending: it was decided already, it expired, or the id is wrong/);
    expect(await run(['approve'])).toBe(2);
    expect(await run(['maybe', first.id])).toBe(2);
  });

  it('--watch is a connected approver that prints each new pending approval once, until stopped', async () => {
    const stop = new AbortController();
    const watching = run(['--watch'], stop.signal);
    await until(async () => (await state.approversSeenSince(Date.now() - 1000)).length > 0);
    const record = await open();
    await until(() => printed.some((line) => line.startsWith(record.id)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(printed.filter((line) => line.startsWith(record.id))).toHaveLength(1);
    stop.abort();
    expect(await watching).toBe(0);
    expect(printed[0]).toMatch(/^watching for approvals as cli:/);
  });
});
