import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../src/audit/audit-record.js';
import { auditCommand, parseDuration } from '../src/cli/audit.js';
import { SqliteState } from '../src/state/sqlite-state.js';
import { auditRecord } from './audit-record-fixture.js';
import { TOOLMESH_BIN } from './harness.js';

const T0 = Date.UTC(2027, 0, 15, 12, 0, 0);
const MINUTE = 60_000;
const exec = promisify(execFile);

let folder: string;
let state: SqliteState;
let printed: string[];
let errors: string[];

beforeEach(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-audit-cli-'));
  state = SqliteState.open(path.join(folder, 'aggregator', 'state.sqlite'));
  printed = [];
  errors = [];
});
afterEach(async () => {
  await state.close();
  rmSync(folder, { recursive: true, force: true });
});

function run(args: string[]): Promise<number> {
  return auditCommand(args, {
    state,
    print: (line) => printed.push(line),
    printError: (line) => errors.push(line),
    now: () => T0,
  });
}

function record(overrides: Partial<AuditRecord> = {}): AuditRecord {
  return auditRecord({ time: T0 - MINUTE, durationMs: 3.25, ...overrides });
}

async function seed(): Promise<AuditRecord[]> {
  const records = [
    record({ time: T0 - 3 * 60 * MINUTE, tool: 'git__status', server: 'git' }),
    record({ time: T0 - 20 * MINUTE, identity: 'ci-bot', tool: 'fs__copy_file' }),
    record({
      time: T0 - MINUTE,
      mode: 'plan',
      tool: 'fs__apply_patch',
      decision: 'deny',
      rule: 'mode plan denies the action class worktreeWrite',
      outcome: 'refused',
      error: 'fs__apply_patch is blocked in plan mode: mode plan denies the action class worktreeWrite.',
      durationMs: 0.4,
    }),
  ];
  for (const each of records) await state.recordAudit(each);
  return records;
}

describe('toolmesh audit', () => {
  it('prints a table, newest first, with the error under a failed call', async () => {
    await seed();
    expect(await run([])).toBe(0);
    expect(printed).toEqual([
      'TIME                  IDENTITY   MODE  TOOL             SERVER  DECISION  OUTCOME  DURATION  ARGUMENTS',
      '2027-01-15T11:59:00Z  local:ana  plan  fs__apply_patch  fs      deny      refused  0.4 ms    {"path":"a.txt"}',
      '    fs__apply_patch is blocked in plan mode: mode plan denies the action class worktreeWrite.',
      '2027-01-15T11:40:00Z  ci-bot     chat  fs__copy_file    fs      allow     ok       3.3 ms    {"path":"a.txt"}',
      '2027-01-15T09:00:00Z  local:ana  chat  git__status      git     allow     ok       3.3 ms    {"path":"a.txt"}',
    ]);
  });

  it('shows a confirmed call with how its approval ended', async () => {
    await state.recordAudit(
      record({ decision: 'confirm', approval: 'timedOut', outcome: 'refused', durationMs: 60_000 }),
    );
    await run([]);
    expect(printed[1]).toMatch(/ confirm \(timedOut\) {2}refused {2}60000 ms {2}/);
  });

  it('filters by age, tool glob and identity, and limits', async () => {
    await seed();
    const tools = async (args: string[]) => {
      printed = [];
      expect(await run([...args, '--json'])).toBe(0);
      return (JSON.parse(printed.join('\n')) as AuditRecord[]).map((found) => found.tool);
    };
    expect(await tools(['--since', '30m'])).toEqual(['fs__apply_patch', 'fs__copy_file']);
    expect(await tools(['--since', '1d'])).toEqual(['fs__apply_patch', 'fs__copy_file', 'git__status']);
    expect(await tools(['--tool', 'git__*'])).toEqual(['git__status']);
    expect(await tools(['--identity', 'ci-bot'])).toEqual(['fs__copy_file']);
    expect(await tools(['--limit', '1'])).toEqual(['fs__apply_patch']);
  });

  it('prints the records as JSON with --json, as they are stored', async () => {
    const records = await seed();
    await run(['--json']);
    expect(JSON.parse(printed.join('\n'))).toEqual([...records].reverse());
  });

  it('says when nothing matches', async () => {
    await seed();
    expect(await run(['--tool', 'slack__*'])).toBe(0);
    expect(printed).toEqual(['no audit record matches']);
  });

  it('reads durations in s, m, h, d and w', () => {
    expect(parseDuration('45s')).toBe(45_000);
    expect(parseDuration('30m')).toBe(30 * MINUTE);
    expect(parseDuration('2h')).toBe(120 * MINUTE);
    expect(parseDuration('7d')).toBe(7 * 24 * 60 * MINUTE);
    expect(parseDuration('1w')).toBe(7 * 24 * 60 * MINUTE);
  });

  it.each([
    [['--since', 'yesterday'], /--since takes a duration such as 30m, 2h or 7d .*not "yesterday"/],
    [['--since=-5m'], /--since takes a duration such as 30m, 2h or 7d .*not "-5m"/],
    [['--limit', '0'], /--limit takes a whole number, at least 1, not "0"/],
    [['--frobnicate'], /Unknown option '--frobnicate'/],
    [['everything'], /audit takes flags only, not "everything"/],
  ])('answers misuse %j with exit code 2, the error and the usage', async (args, message) => {
    expect(await run(args)).toBe(2);
    expect(printed).toEqual([]);
    expect(errors[0]).toMatch(message);
    expect(errors[0]).toMatch(/Usage: toolmesh audit \[--since DURATION\]/);
  });
});

describe('toolmesh audit, the built bin', () => {
  const toolmesh = (...args: string[]) =>
    exec(process.execPath, [TOOLMESH_BIN, 'audit', ...args], {
      env: { ...process.env, TOOLMESH_DATA_DIR: folder },
      timeout: 120_000,
    }).then(
      (result) => ({ ...result, code: 0 }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );

  it('reads the state in the data directory', async () => {
    await state.recordAudit(record({ time: Date.now(), tool: 'fx__echo' }));
    const listed = await toolmesh('--since', '5m', '--json');
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as AuditRecord[]).map((found) => found.tool)).toEqual(['fx__echo']);
  });

  it('exits 2 on a bad duration, saying why on stderr', async () => {
    const bad = await toolmesh('--since', '5 minutes');
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/--since takes a duration such as 30m, 2h or 7d/);
  });
});
