import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '@toolmesh/core';
import { type ConnectedClient, connectInMemory, resultText, SECRET_SAMPLES } from '@toolmesh/core/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Aggregator } from '../src/aggregator.js';
import { canonicalJson, digestArguments, MAX_REDACTED_CHARACTERS } from '../src/audit/arguments-digest.js';
import type { AuditRecord } from '../src/audit/audit-record.js';
import { AuditRetention } from '../src/audit/audit-retention.js';
import { MAX_KEPT_DEPTH, redactArguments, redactSecretText } from '../src/audit/redaction.js';
import { parseConfig } from '../src/config/load.js';
import { SqliteState } from '../src/state/sqlite-state.js';
import { auditRecord } from './audit-record-fixture.js';
import { FS_BIN, fixture, type Harness, startHarness, until } from './harness.js';

const T0 = 1_800_000_000_000;
const DAY = 24 * 60 * 60 * 1000;
const quiet = createLogger({ sink: () => {} });

function record(overrides: Partial<AuditRecord> = {}): AuditRecord {
  return auditRecord({ time: T0, ...overrides });
}

describe('the audit in the state', () => {
  let folder: string;
  let state: SqliteState;
  beforeEach(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-audit-state-'));
    state = SqliteState.open(path.join(folder, 'state.sqlite'));
  });
  afterEach(async () => {
    await state.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('keeps every field of a record, optional ones included', async () => {
    const full = record({
      workspace: 'web',
      decision: 'confirm',
      approval: 'declined',
      outcome: 'refused',
      error: 'fs__read_file was declined by the user; it did not run.',
    });
    await state.recordAudit(full);
    await state.recordAudit(record({ time: T0 + 1 }));
    expect(await state.auditRecords({ limit: 10 })).toEqual([record({ time: T0 + 1 }), full]);
  });

  it('answers queries newest first, by time, tool glob, identity and limit', async () => {
    await state.recordAudit(record({ time: T0, tool: 'fs__read_file' }));
    await state.recordAudit(record({ time: T0 + 10, tool: 'fs__copy_file', identity: 'ci-bot' }));
    await state.recordAudit(record({ time: T0 + 20, tool: 'git__status' }));
    await state.recordAudit(record({ time: T0 + 20, tool: 'fs__list_dir' }));
    const tools = async (query: Parameters<SqliteState['auditRecords']>[0]) =>
      (await state.auditRecords(query)).map((found) => found.tool);
    expect(await tools({ limit: 10 })).toEqual([
      'fs__list_dir',
      'git__status',
      'fs__copy_file',
      'fs__read_file',
    ]);
    expect(await tools({ since: T0 + 10, limit: 10 })).toEqual([
      'fs__list_dir',
      'git__status',
      'fs__copy_file',
    ]);
    expect(await tools({ tool: 'fs__*', limit: 10 })).toEqual([
      'fs__list_dir',
      'fs__copy_file',
      'fs__read_file',
    ]);
    expect(await tools({ tool: 'fs__?ead_file', limit: 10 })).toEqual(['fs__read_file']);
    expect(await tools({ tool: 'FS__*', limit: 10 })).toEqual([]);
    expect(await tools({ tool: '[fg]*', limit: 10 })).toEqual([]);
    expect(await tools({ identity: 'ci-bot', limit: 10 })).toEqual(['fs__copy_file']);
    expect(await tools({ limit: 2 })).toEqual(['fs__list_dir', 'git__status']);
    expect(await tools({ limit: 2, offset: 2 })).toEqual(['fs__copy_file', 'fs__read_file']);
    expect(await tools({ until: T0 + 20, limit: 10 })).toEqual(['fs__copy_file', 'fs__read_file']);
  });

  it('filters by server, outcome, mode and workspace', async () => {
    await state.recordAudit(record({ time: T0, tool: 'fs__read_file', server: 'fs' }));
    await state.recordAudit(
      record({ time: T0 + 1, tool: 'git__push', server: 'git', outcome: 'refused', mode: 'plan' }),
    );
    await state.recordAudit(record({ time: T0 + 2, tool: 'fs__write_file', server: 'fs', workspace: 'web' }));
    const tools = async (query: Parameters<SqliteState['auditRecords']>[0]) =>
      (await state.auditRecords(query)).map((found) => found.tool);
    expect(await tools({ server: 'fs', limit: 10 })).toEqual(['fs__write_file', 'fs__read_file']);
    expect(await tools({ outcome: 'refused', limit: 10 })).toEqual(['git__push']);
    expect(await tools({ mode: 'plan', limit: 10 })).toEqual(['git__push']);
    expect(await tools({ workspace: 'web', limit: 10 })).toEqual(['fs__write_file']);
  });

  it('prunes what is older than the retention, at start and on each round', async () => {
    let clock = T0;
    await state.recordAudit(record({ time: T0 - 31 * DAY }));
    await state.recordAudit(record({ time: T0 - 29 * DAY }));
    const retention = new AuditRetention({ state, log: quiet, retentionDays: () => 30, now: () => clock });
    expect(await retention.prune()).toBe(1);
    clock = T0 + 2 * DAY;
    expect(await retention.prune()).toBe(1);
    expect(await state.auditRecords({ limit: 10 })).toEqual([]);
  });

  it('prunes on its timer once started', async () => {
    await state.recordAudit(record({ time: T0 - 2 * DAY }));
    const retention = new AuditRetention({
      state,
      log: quiet,
      retentionDays: () => 1,
      now: () => T0,
      everyMs: 20,
    });
    retention.start();
    await state.recordAudit(record({ time: T0 - 3 * DAY }));
    await until(async () => (await state.auditRecords({ limit: 10 })).length === 0);
    retention.stop();
  });
});

describe('redaction of arguments', () => {
  const secrets = {
    github: 'ghp_R2d2C3poR2d2C3poR2d2C3poR2d2C3po1234',
    fineGrained: `github_pat_11ABCDEFG0123456789_${'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(2).slice(0, 62)}`,
    openai: 'sk-proj-Ab3dEf6hIj9lMn2pQr5tUv8xYz1AbCdEf',
    slack: 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
    aws: 'AKIAZ2XQ7YH3ABCDWXYZ',
    jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    random: 'Zq8vK2mX9pL4wR7tY1nB6cF3hJ5dG0sA',
  };

  it('replaces values under secret-looking keys at any depth, and keeps keys about secrets', () => {
    expect(
      redactArguments({
        apiKey: 'plain',
        headers: { 'X-Auth-Token': 'plain', Cookie: 'a=b', accept: 'json' },
        users: [{ name: 'ana', password: 'hunter2' }],
        client_secret: 'plain',
        maxTokens: 4000,
        author: 'Ana',
        path: 'a.txt',
      }),
    ).toEqual({
      apiKey: '[redacted]',
      headers: { 'X-Auth-Token': '[redacted]', Cookie: '[redacted]', accept: 'json' },
      users: [{ name: 'ana', password: '[redacted]' }],
      client_secret: '[redacted]',
      maxTokens: 4000,
      author: 'Ana',
      path: 'a.txt',
    });
  });

  it.each(Object.entries(secrets))('replaces a %s token wherever it sits in a string', (_kind, secret) => {
    expect(redactSecretText(`use ${secret} now`)).toBe('use [redacted] now');
    expect(redactArguments({ list: [{ note: secret }] })).toEqual({ list: [{ note: '[redacted]' }] });
  });

  it.each(SECRET_SAMPLES.map((sample) => [sample.rule, sample] as const))(
    'replaces every format core knows: %s',
    (_rule, sample) => {
      const redacted = redactSecretText(`use ${sample.text} now`);
      expect(redacted).not.toContain(sample.secret);
      expect(redacted).toMatch(/^use .*\[redacted\]/s);
      expect(JSON.stringify(redactArguments({ list: [{ note: sample.text }] }))).not.toContain(sample.secret);
    },
  );

  it('keeps the scheme of an authorization header, and the user of a URL with a password', () => {
    expect(redactSecretText('Authorization: Bearer abc123.def456-ghi')).toBe(
      'Authorization: Bearer [redacted]',
    );
    expect(redactSecretText('curl https://ana:s3cret@example.com/x')).toBe(
      'curl https://ana:[redacted]@example.com/x',
    );
  });

  it('replaces secrets named in prose and on command lines', () => {
    expect(redactSecretText('login with password=hunter2 then')).toBe('login with password=[redacted] then');
    expect(redactSecretText('API_KEY: "abc def"; next')).toBe('API_KEY: [redacted]; next');
    expect(redactSecretText('mysql --password hunter2 -u root')).toBe('mysql --password [redacted] -u root');
    expect(redactSecretText('deploy --token=abc123')).toBe('deploy --token=[redacted]');
  });

  it('replaces a PEM private key whole', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----';
    expect(redactSecretText(`key:\n${pem}\nend`)).toBe('key:\n[redacted]\nend');
  });

  it('keeps ordinary text: paths, identifiers, commit ids, UUIDs, prose', () => {
    const ordinary = [
      'packages/Aggregator2/src/FrontServerTests/Index.test.ts',
      'MyVeryLongClassNameForTesting123Things',
      'test_should_return_404_when_User_missing',
      '9fceb02d0ae598e95dc970b74767f19372d61af8',
      '123e4567-e89b-12d3-a456-426614174000',
      'Basic configuration is enough; a bearer token is read from the environment.',
    ];
    for (const text of ordinary) expect(redactSecretText(text)).toBe(text);
  });
});

describe('the arguments digest', () => {
  it('matches equal arguments whatever their key order, and gives nothing of a secret away', () => {
    const one = digestArguments({
      b: 1,
      a: { y: [1, 2], x: 'token ghp_R2d2C3poR2d2C3poR2d2C3poR2d2C3po1234' },
    });
    const same = digestArguments({
      a: { x: 'token ghp_R2d2C3poR2d2C3poR2d2C3poR2d2C3po1234', y: [1, 2] },
      b: 1,
    });
    const other = digestArguments({
      b: 1,
      a: { y: [1, 2], x: 'token ghp_Different0Different0Different0Differ' },
    });
    expect(same.sha256).toBe(one.sha256);
    expect(other.redacted).toBe(one.redacted);
    // Only the redacted form is hashed: a guess at the token cannot be confirmed from the digest.
    expect(other.sha256).toBe(one.sha256);
    expect(digestArguments({ b: 2, a: { y: [1, 2], x: 'token' } }).sha256).not.toBe(one.sha256);
    expect(one.redacted).toBe('{"b":1,"a":{"y":[1,2],"x":"token [redacted]"}}');
    expect(one.redacted).not.toContain('ghp_');
    expect(canonicalJson({ b: 1, a: { y: [1, 2], x: 'v' } })).toBe('{"a":{"x":"v","y":[1,2]},"b":1}');
  });

  it('hashes the canonical JSON of the redacted arguments, whether or not their keys come sorted', () => {
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    const cases = [
      { text: 'ping' },
      { a: 1, b: [true, null, { c: 'd', e: -0 }], f: { g: 1.5 } },
      { b: 1, a: { y: [1, 2], x: 'v' } },
      // Integer-like keys come first in an object, in numeric order: not sorted as text.
      { '9': 'nine', '10': 'ten' },
      { é: 1, e: 2, Z: 3 },
      JSON.parse('{"__proto__":{"z":1,"a":2},"b":2}') as Record<string, unknown>,
    ];
    for (const args of cases) {
      const digest = digestArguments(args);
      expect(digest.sha256).toBe(sha256(canonicalJson(JSON.parse(digest.redacted))));
    }
    // A key named __proto__ stays a key of the redacted arguments, as JSON.parse made it.
    expect(digestArguments(cases[5] as Record<string, unknown>).redacted).toBe(
      '{"__proto__":{"z":1,"a":2},"b":2}',
    );
    expect(canonicalJson(cases[3])).toBe('{"10":"ten","9":"nine"}');
    expect(canonicalJson(cases[4])).toBe('{"Z":3,"e":2,"é":1}');
    expect(canonicalJson(cases[5])).toBe('{"__proto__":{"a":2,"z":1},"b":2}');
  });

  // Found by the fuzz test: a tools/call whose arguments nested 10,000 arrays deep failed with
  // "Maximum call stack size exceeded" (JSON-RPC internal error) while its audit record was made.
  it('keeps arguments nested thousands deep to a bounded depth, saying so', () => {
    let deep: unknown = 'token ghp_R2d2C3poR2d2C3poR2d2C3poR2d2C3po1234';
    for (let level = 0; level < 10_000; level++) deep = [deep];
    const digest = digestArguments({ deep, path: 'a.txt' });
    expect(digest.redacted).toContain(`[nested deeper than ${MAX_KEPT_DEPTH} levels, not kept]`);
    expect(digest.redacted).toContain('"path":"a.txt"');
    expect(digest.redacted).not.toContain('ghp_');
    expect(digest.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('cuts long arguments to a bounded size, saying how long they were', () => {
    const digest = digestArguments({ content: 'x'.repeat(10_000) });
    expect(digest.redacted.length).toBe(MAX_REDACTED_CHARACTERS);
    expect(digest.redacted).toMatch(/…\(10,014 characters\)$/);
  });
});

describe('the audit of calls through toolmesh', () => {
  let harness: Harness;
  const audit = () => harness.aggregator.audit;
  const all = () => audit().query({ limit: 1000 });
  async function latest(): Promise<AuditRecord> {
    return (await audit().query({ limit: 1 }))[0] as AuditRecord;
  }

  beforeAll(async () => {
    harness = await startHarness({
      mcpServers: {
        fx: fixture('fx'),
        slow: fixture('slow', { timeoutMs: 400 }),
        crashy: fixture('crashy'),
      },
      toolPolicy: { fx__whoami: { requiresApproval: true } },
      modes: { locked: { deny: { tools: ['fx__echo'] } } },
      approvalTimeoutMs: 1000,
    });
  });
  afterAll(() => harness.close());

  /** A client that answers each elicitation with `answer`, or never when it is undefined. */
  async function eliciting(answer: 'accept' | 'decline' | undefined) {
    const connected = await harness.connect({ capabilities: { elicitation: { form: {} } } });
    connected.client.setRequestHandler(ElicitRequestSchema, () =>
      answer === undefined
        ? new Promise(() => {})
        : { action: answer, ...(answer === 'accept' && { content: {} }) },
    );
    return connected;
  }

  it('records an allowed call: who, session, mode, workspace, tool, server, arguments, decision, outcome, duration', async () => {
    const before = Date.now();
    const { call } = await harness.connect();
    const result = await call('fx__echo', { text: 'hi', token: 'hunter2' });
    expect(resultText(result)).toBe('fx: hi');
    const found = await latest();
    expect(found).toMatchObject({
      identity: `local:${os.userInfo().username}`,
      mode: 'chat',
      workspace: 'default',
      tool: 'fx__echo',
      server: 'fx',
      argumentsDigest: {
        redacted: '{"text":"hi","token":"[redacted]"}',
        sha256: digestArguments({ text: 'hi', token: 'hunter2' }).sha256,
      },
      decision: 'allow',
      rule: expect.any(String),
      outcome: 'ok',
    });
    expect(found.session).toMatch(/^[0-9a-f-]{36}$/);
    expect(found.time).toBeGreaterThanOrEqual(before);
    expect(found.durationMs).toBeGreaterThan(0);
    expect(found).not.toHaveProperty('approval');
    expect(found).not.toHaveProperty('error');
  });

  it('records a denied call with the rule that denied it', async () => {
    const { call } = await harness.connect({ mode: 'locked' });
    const result = await call('fx__echo', { text: 'hi' });
    expect(result.isError).toBe(true);
    expect(await latest()).toMatchObject({
      mode: 'locked',
      tool: 'fx__echo',
      decision: 'deny',
      rule: 'mode locked denies tools matching "fx__echo"',
      outcome: 'refused',
      error: resultText(result),
    });
  });

  it.each([
    ['accept', 'approved', 'ok'],
    ['decline', 'declined', 'refused'],
    [undefined, 'timedOut', 'refused'],
  ] as const)(
    'records a confirmed call the user answers with %s as %s',
    async (answer, approval, outcome) => {
      const { call } = await eliciting(answer);
      await call('fx__whoami');
      expect(await latest()).toMatchObject({ tool: 'fx__whoami', decision: 'confirm', approval, outcome });
    },
  );

  it.each([
    ['decline', 'declined', 'refused'],
    ['accept', 'approved', 'ok'],
  ] as const)(
    'records exit_plan_mode the user answers with %s as a confirmed call %s',
    async (answer, approval, outcome) => {
      const connected = await harness.connect({ mode: 'plan', capabilities: { elicitation: { form: {} } } });
      connected.client.setRequestHandler(ElicitRequestSchema, () => ({
        action: answer,
        ...(answer === 'accept' && { content: {} }),
      }));
      await connected.call('exit_plan_mode', { plan: 'carry it out' });
      expect(await latest()).toMatchObject({
        tool: 'exit_plan_mode',
        mode: 'plan',
        decision: 'confirm',
        approval,
        outcome,
      });
    },
  );

  it('records a confirmed call refused for want of an approver', async () => {
    const { call } = await harness.connect();
    await call('fx__whoami');
    expect(await latest()).toMatchObject({
      tool: 'fx__whoami',
      decision: 'confirm',
      approval: 'refused',
      outcome: 'refused',
      error: expect.stringMatching(/no approver is connected/),
    });
  });

  it('records arguments the server rejects by its schema, with the outcome', async () => {
    const { call } = await harness.connect();
    const result = await call('fx__echo', { text: 5 });
    expect(result.isError).toBe(true);
    expect(await latest()).toMatchObject({
      tool: 'fx__echo',
      decision: 'allow',
      argumentsDigest: { redacted: '{"text":5}' },
      outcome: 'isError',
      error: expect.stringMatching(/Input validation error: Invalid arguments for tool echo: .* at text$/),
    });
  });

  it('records a timeout, a cancellation and a crash as such', async () => {
    const { client, call } = await harness.connect();
    await call('slow__hang');
    expect(await latest()).toMatchObject({ tool: 'slow__hang', outcome: 'timeout' });

    const count = (await all()).length;
    const cancel = new AbortController();
    const pending = client.callTool({ name: 'slow__count_slowly', arguments: { n: 100 } }, undefined, {
      signal: cancel.signal,
    });
    setTimeout(() => cancel.abort(), 100);
    await pending.catch(() => undefined);
    await until(async () => (await all()).length > count);
    expect(await latest()).toMatchObject({ tool: 'slow__count_slowly', outcome: 'cancelled' });

    await call('crashy__crash');
    expect(await latest()).toMatchObject({ tool: 'crashy__crash', outcome: 'crash' });
    await call('crashy__echo', { text: 'again' });
    expect(await latest()).toMatchObject({ tool: 'crashy__echo', outcome: 'unavailable' });
  });

  it('does not record a call of an unknown tool, which never reaches policy', async () => {
    const { client } = await harness.connect();
    const count = (await all()).length;
    await expect(client.callTool({ name: 'fx__no_such_tool', arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    );
    expect((await all()).length).toBe(count);
  });

  it('records a call_tool call once, as its target', async () => {
    const { call } = await harness.connect();
    const count = (await all()).length;
    const result = await call('call_tool', { name: 'fx__echo', arguments: { text: 'via call_tool' } });
    expect(resultText(result)).toBe('fx: via call_tool');
    const records = await all();
    expect(records.length).toBe(count + 1);
    expect(records[0]).toMatchObject({
      tool: 'fx__echo',
      server: 'fx',
      decision: 'allow',
      outcome: 'ok',
      argumentsDigest: { redacted: '{"text":"via call_tool"}' },
    });
  });

  it('records a call_tool call its target denies once, as the denied target', async () => {
    const { call } = await harness.connect({ mode: 'locked' });
    const count = (await all()).length;
    await call('call_tool', { name: 'fx__echo', arguments: { text: 'x' } });
    const records = await all();
    expect(records.length).toBe(count + 1);
    expect(records[0]).toMatchObject({ tool: 'fx__echo', decision: 'deny', outcome: 'refused' });
  });

  it("records toolmesh's own tools, and a call_tool call whose target does not exist as call_tool", async () => {
    const { call } = await harness.connect();
    await call('todo_write', { todos: [{ content: 'audit', status: 'pending' }] });
    expect(await latest()).toMatchObject({ tool: 'todo_write', server: 'toolmesh', outcome: 'ok' });
    const count = (await all()).length;
    await call('call_tool', { name: 'fx__nope', arguments: {} });
    const records = await all();
    expect(records.length).toBe(count + 1);
    expect(records[0]).toMatchObject({
      tool: 'call_tool',
      server: 'toolmesh',
      outcome: 'isError',
      error: expect.stringMatching(/No tool named fx__nope/),
    });
  });
});

describe('a full disk', () => {
  const CAP_BYTES = 256 * 1024;
  let folder: string;
  let state: SqliteState;
  let other: SqliteState;
  let aggregator: Aggregator;
  let call: ConnectedClient['call'];
  let close: () => Promise<void>;
  const logs: string[] = [];

  beforeEach(async () => {
    folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-audit-full-')));
    writeFileSync(path.join(folder, 'a.txt'), 'a\n');
    const file = path.join(folder, 'state.sqlite');
    state = SqliteState.open(file, { maxBytes: CAP_BYTES });
    // Another writer of the same file, under the same cap: what it adds takes the space toolmesh needs.
    other = SqliteState.open(file, { maxBytes: CAP_BYTES });
    const loaded = parseConfig({
      mcpServers: {
        fs: {
          command: process.execPath,
          args: [FS_BIN, '--root', folder],
          env: { TOOLMESH_DATA_DIR: path.join(folder, '.data') },
        },
      },
    });
    aggregator = await Aggregator.start({
      config: loaded.config,
      servers: loaded.servers,
      state,
      log: createLogger({ level: 'debug', sink: (line) => logs.push(line) }),
      upstream: { pingIntervalMs: 0 },
    });
    const connected = await connectInMemory(aggregator.createSessionServer());
    call = connected.call;
    close = async () => {
      await connected.client.close();
      await aggregator.stop();
      await state.close();
      await other.close();
      rmSync(folder, { recursive: true, force: true });
    };
  });
  afterEach(() => close());

  /**
   * Fills the file to its cap with old records smaller than any call's, so that no call's record
   * fits any more; pruning deletes them again.
   */
  async function fillTheDisk(): Promise<void> {
    const filler = record({
      time: 1,
      tool: 'f',
      server: 'f',
      rule: 'f',
      argumentsDigest: { redacted: '{}', sha256: '0' },
    });
    for (let written = 0; written < CAP_BYTES; written++) {
      try {
        await other.recordAudit(filler);
      } catch (error) {
        expect((error as { code?: string }).code).toBe('SQLITE_FULL');
        return;
      }
    }
    throw new Error('the state file never filled up');
  }

  it('withholds the result of the call whose record fails, refuses calls until space is back, and drops no record', async () => {
    expect((await call('fs__read_file', { path: 'a.txt' })).isError).toBeFalsy();

    await fillTheDisk();
    const withheld = await call('fs__copy_file', { source: 'a.txt', destination: 'b.txt' });
    expect(withheld.isError).toBe(true);
    expect(resultText(withheld)).toBe(
      `fs__copy_file ran (outcome ok), but toolmesh could not write its audit record to ${path.join(folder, 'state.sqlite')} (SQLITE_FULL: database or disk is full), so its result is withheld and every call is refused until the audit log can be written. Free disk space where the state file is (or check that the file is writable and not damaged), then retry; records held meanwhile are written first.`,
    );
    expect(existsSync(path.join(folder, 'b.txt'))).toBe(true);
    expect(
      logs.some(
        (line) =>
          /error/.test(line) &&
          line.includes(path.join(folder, 'state.sqlite')) &&
          line.includes('SQLITE_FULL'),
      ),
    ).toBe(true);

    const refused = await call('fs__copy_file', { source: 'a.txt', destination: 'c.txt' });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toMatch(
      /^toolmesh refuses every call until its audit log can be written again: writing to .+state\.sqlite failed \(SQLITE_FULL: database or disk is full\), and 1 audit records wait to be written\. This call did not run\. Free disk space/,
    );
    expect(existsSync(path.join(folder, 'c.txt'))).toBe(false);
    expect(aggregator.audit.held.map((held) => held.tool)).toEqual(['fs__copy_file']);

    await other.pruneAudit(1000);
    const after = await call('fs__read_file', { path: 'b.txt' });
    expect(after.isError).toBeFalsy();
    const records = await state.auditRecords({ limit: 10 });
    expect(records.map((found) => [found.tool, found.outcome, found.argumentsDigest.redacted])).toEqual([
      ['fs__read_file', 'ok', '{"path":"b.txt"}'],
      ['fs__copy_file', 'ok', '{"source":"a.txt","destination":"b.txt"}'],
      ['fs__read_file', 'ok', '{"path":"a.txt"}'],
    ]);
    expect(aggregator.audit.held).toEqual([]);
  });
});
