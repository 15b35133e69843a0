import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openState } from '../src/state/open-state.js';
import { auditRecord } from './audit-record-fixture.js';
import { fixture } from './harness.js';
import { freePort } from './private-redis.js';
import { deleteKeys, dropSchema, POSTGRES_URL, REDIS_URL } from './state-backends.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const exec = promisify(execFile);

let folder: string;
let prefix: string;
let schema: string;

beforeEach(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-state-cli-'));
  const tag = `${process.pid}_${randomBytes(4).toString('hex')}`;
  prefix = `toolmesh-test:${tag}:`;
  schema = `toolmesh_cli_${tag}`;
});
afterEach(async () => {
  await deleteKeys(prefix);
  await dropSchema(schema);
  rmSync(folder, { recursive: true, force: true });
});

function toolmesh(args: string[], env: Record<string, string> = {}) {
  return exec(process.execPath, [BIN, ...args], {
    cwd: folder,
    timeout: 120_000,
    env: { ...process.env, TOOLMESH_REDIS_PREFIX: prefix, TOOLMESH_POSTGRES_SCHEMA: schema, ...env },
  }).then(
    (result) => ({ ...result, code: 0 }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

function writeConfig(state: Record<string, string>): string {
  const file = path.join(folder, 'toolmesh.json');
  writeFileSync(file, JSON.stringify({ mcpServers: { probe: fixture('a') }, state }));
  return file;
}

describe('the state from the command line', () => {
  it('doctor checks Redis and PostgreSQL named in the config through env references', async () => {
    writeConfig({
      redis: `\${env:TM_TEST_REDIS}`,
      postgres: `\${env:TM_TEST_POSTGRES}`,
      auditCommit: 'flushed',
    });
    const doctor = await toolmesh(['doctor'], { TM_TEST_REDIS: REDIS_URL, TM_TEST_POSTGRES: POSTGRES_URL });
    expect(doctor.stdout).toMatch(/^ok\s+redis: PONG from redis:\/\/127\.0\.0\.1:6379\/? in [\d.]+ ms$/m);
    // The commit policy as PostgreSQL reports it for toolmesh's own connections.
    expect(doctor.stdout).toMatch(
      new RegExp(
        `^ok\\s+postgres: select 1 on .* schema ${schema} at version 1; audit records acknowledged once flushed \\(synchronous_commit on\\)$`,
        'm',
      ),
    );
    expect(doctor).toMatchObject({ code: 0 });
  });

  it('doctor says Redis is not running and how to check, and asks for postgres beside Redis', async () => {
    writeConfig({});
    const doctor = await toolmesh(['doctor', '--redis', `redis://127.0.0.1:${await freePort()}`]);
    expect(doctor).toMatchObject({ code: 1 });
    expect(doctor.stdout).toMatch(
      /^warning state: the audit log .* set state\.postgres \(or --postgres URL\)/m,
    );
    expect(doctor.stdout).toMatch(
      /^FAILED\s+redis: cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+\/? .*ECONNREFUSED.*check that Redis runs/m,
    );
    expect(doctor.stdout).toMatch(/^ok\s+probe: /m);
  });

  it('doctor names a wrong PostgreSQL password without printing it', async () => {
    writeConfig({});
    const doctor = await toolmesh([
      'doctor',
      '--postgres',
      POSTGRES_URL.replace('//postgres@', '//toolmesh_no_such_user:hunter2@'),
    ]);
    expect(doctor).toMatchObject({ code: 1 });
    expect(doctor.stdout).toMatch(
      /^FAILED\s+postgres: cannot open toolmesh's audit .*toolmesh_no_such_user/m,
    );
    expect(doctor.stdout).not.toContain('hunter2');
  });

  it('refuses a state section that is not two URLs, naming the key', async () => {
    writeConfig({ redis: 'localhost:6379' });
    const tools = await toolmesh(['tools']);
    expect(tools).toMatchObject({ code: 2 });
    expect(tools.stderr).toMatch(/state\.redis.*redis:\/\//);
    writeFileSync(path.join(folder, 'toolmesh.json'), JSON.stringify({ state: { mongo: 'x' } }));
    expect((await toolmesh(['tools'])).stderr).toMatch(/state.*mongo/);
  });

  it('audit reads the fleet audit from PostgreSQL, and token keeps the tokens in Redis', async () => {
    const writer = await openState({
      postgres: POSTGRES_URL,
      postgresSchema: schema,
      file: path.join(folder, 'a.sqlite'),
    });
    try {
      await writer.recordAudit(auditRecord({ time: Date.now(), tool: 'fs__written_elsewhere' }));
    } finally {
      await writer.close();
    }
    const audit = await toolmesh(['audit', '--postgres', POSTGRES_URL, '--json']);
    expect(audit).toMatchObject({ code: 0 });
    expect((JSON.parse(audit.stdout) as { tool: string }[]).map((record) => record.tool)).toEqual([
      'fs__written_elsewhere',
    ]);
    expect(await toolmesh(['token', 'create', '--name', 'ci', '--redis', REDIS_URL])).toMatchObject({
      code: 0,
    });
    const listed = await toolmesh(['token', 'list', '--json', `--redis=${REDIS_URL}`]);
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((token) => token.name)).toEqual(['ci']);
    // The data directory's file knows nothing of it: the token is the fleet's.
    expect((await toolmesh(['token', 'list', '--json'])).stdout).not.toContain('"ci"');
  });
});
