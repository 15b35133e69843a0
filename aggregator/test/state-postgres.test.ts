import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostgresRecords } from '../src/state/postgres-records.js';
import { StateUnavailableError } from '../src/state/state-unavailable.js';
import { auditRecord } from './audit-record-fixture.js';
import { freePort } from './private-redis.js';
import { dropSchema, POSTGRES_URL } from './state-backends.js';

const T0 = 1_800_000_000_000;

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
