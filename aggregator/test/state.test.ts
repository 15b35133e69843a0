import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '@toolmesh/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openState } from '../src/state/open-state.js';
import { SqliteState } from '../src/state/sqlite-state.js';
import type { AggregatorState, NewApproval } from '../src/state/state.js';

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

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
    const state = await openState({ dataDir });
    opened.push(state);
    await state.writeTodos('s1', [{ content: 'kept', status: 'pending' }]);
    expect(existsSync(path.join(dataDir, 'aggregator', 'state.sqlite'))).toBe(true);
    expect(statSync(path.join(dataDir, 'aggregator')).mode & 0o777).toBe(0o700);
    const elsewhere = path.join(folder, 'elsewhere', 'mine.sqlite');
    opened.push(await openState({ dataDir, file: elsewhere }));
    expect(existsSync(elsewhere)).toBe(true);
  });
});
