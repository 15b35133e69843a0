import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostgresRecords } from '../src/state/postgres-records.js';
import { AUDIT_COMMITS } from '../src/state/state.js';
import { StateUnavailableError } from '../src/state/state-unavailable.js';
import { auditRecord } from './audit-record-fixture.js';
import { freePort } from './private-redis.js';
import { dropSchema, POSTGRES_URL } from './state-backends.js';

const T0 = 1_800_000_000_000;
const WRITER = fileURLToPath(new URL('./fixtures/audit-writer.mjs', import.meta.url));

async function sql(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

describe('the audit in PostgreSQL', () => {
  let schema: string;
  const opened: PostgresRecords[] = [];

  beforeEach(() => {
    schema = `toolmesh_pg_${process.pid}_${randomBytes(4).toString('hex')}`;
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((records) => records.close()));
    await dropSchema(schema);
  });

  async function open(): Promise<PostgresRecords> {
    const records = await PostgresRecords.open(POSTGRES_URL, { schema });
    opened.push(records);
    return records;
  }

  it('creates its schema once when several replicas open it at the same moment', async () => {
    const replicas = await Promise.all([open(), open(), open()]);
    await replicas[0]?.recordAudit(auditRecord({ time: T0 }));
    expect(await replicas[2]?.auditRecords({ limit: 10 })).toEqual([auditRecord({ time: T0 })]);
    expect((await replicas[1]?.health())?.postgres).toMatchObject({ ok: true });
  });

  it('keeps each record of calls that end together as it was written', async () => {
    const records = await open();
    const written = Array.from({ length: 40 }, (_, index) =>
      auditRecord({
        time: T0 + index,
        ...(index % 2 === 0 && { workspace: `w${index}` }),
        ...(index % 3 === 0 && { approval: 'approved', error: `it's "quoted", {braced} and \\ escaped` }),
        durationMs: index / 7,
      }),
    );
    // Written at once, so that most go in batches of several rows.
    await Promise.all(written.map((record) => records.recordAudit(record)));
    expect(await records.auditRecords({ limit: 100 })).toEqual([...written].reverse());
  });

  it('never acknowledges a record PostgreSQL refused to commit', async () => {
    const records = await open();
    await records.recordAudit(auditRecord({ time: T0 }));
    // PostgreSQL itself refuses every new row, as a full disk or a broken table would.
    await sql(`ALTER TABLE ${schema}.audit ADD CONSTRAINT refuse_all CHECK (false) NOT VALID`);
    const error = await records
      .recordAudit(auditRecord({ time: T0 + 1 }))
      .catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(StateUnavailableError);
    expect((error as Error).message).toMatch(
      /audit in PostgreSQL at postgres:.* did not take the query .*nothing was kept/,
    );
    expect((await records.auditRecords({ limit: 10 })).map((record) => record.time)).toEqual([T0]);
  });

  it('refuses a schema written by a newer toolmesh', async () => {
    await (await open()).close();
    await sql(`INSERT INTO ${schema}.migrations (version) VALUES (99)`);
    await expect(open()).rejects.toThrow(
      /schema toolmesh_pg_\w+ is at version 99, newer than this toolmesh knows.*upgrade toolmesh/,
    );
  });

  it('says what to fix for a server that is not running and a database that does not exist', async () => {
    const nowhere = `postgres://postgres:secret@127.0.0.1:${await freePort()}/test`;
    const down = (await PostgresRecords.open(nowhere, { schema }).then(
      (records) => records.close(),
      (error: unknown) => error,
    )) as Error;
    expect(down).toBeInstanceOf(StateUnavailableError);
    expect(down.message).toMatch(
      /cannot open toolmesh's audit in PostgreSQL at postgres:\/\/127\.0\.0\.1:\d+\/test .*ECONNREFUSED.*pg_isready/,
    );
    expect(down.message).not.toContain('secret');
    const missing = POSTGRES_URL.replace(/\/[^/]*$/, '/toolmesh_no_such_db');
    await expect(PostgresRecords.open(missing, { schema })).rejects.toThrow(
      /database "toolmesh_no_such_db" does not exist; create the database/,
    );
  });
});

/** The times a killed writer printed as acknowledged, every whole line up to its end. */
function acknowledgedUntilKilled(settings: Record<string, string>, killAfter: number): Promise<number[]> {
  const child = spawn(process.execPath, [WRITER, JSON.stringify({ settings, concurrency: 16 })], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  let killed = false;
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk;
    // Killed while records are in flight: some acknowledged, some sent and not yet answered.
    if (!killed && output.split('\n').length > killAfter + 2) {
      killed = true;
      child.kill('SIGKILL');
    }
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      if (signal !== 'SIGKILL') return reject(new Error(`the writer ended by itself: ${output.slice(-500)}`));
      const lines = output.split('\n');
      lines.pop(); // a line cut by the kill is no acknowledgement
      resolve(lines.filter((line) => line !== 'ready').map(Number));
    });
  });
}

describe.each(AUDIT_COMMITS)('the audit in PostgreSQL with auditCommit %s', (commit) => {
  let schema: string;
  let folder: string;

  beforeEach(() => {
    schema = `toolmesh_pg_${process.pid}_${randomBytes(4).toString('hex')}`;
    folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-pg-'));
  });
  afterEach(async () => {
    await dropSchema(schema);
    rmSync(folder, { recursive: true, force: true });
  });

  it('loses no acknowledged record when the replica that wrote it is killed', async () => {
    const settings = {
      file: path.join(folder, 'state.sqlite'),
      postgres: POSTGRES_URL,
      postgresSchema: schema,
      auditCommit: commit,
    };
    const acknowledged = await acknowledgedUntilKilled(settings, 400);
    expect(acknowledged.length).toBeGreaterThanOrEqual(400);
    const records = await PostgresRecords.open(POSTGRES_URL, { schema, commit });
    try {
      const kept = new Set((await records.auditRecords({ limit: 1_000_000 })).map((record) => record.time));
      expect(acknowledged.filter((time) => !kept.has(time))).toEqual([]);
      // Each record once, though calls ending together were committed as one statement.
      expect(kept.size).toBe((await records.auditRecords({ limit: 1_000_000 })).length);
      expect((await records.health()).postgres?.detail).toContain(
        `acknowledged once ${commit} (synchronous_commit ${commit === 'flushed' ? 'on' : 'off'})`,
      );
    } finally {
      await records.close();
    }
  });
});
