import pg from 'pg';
import type { AuditQuery, AuditRecord } from '../audit/audit-record.js';
import { type AuditRow, auditOf, auditRowValues } from './audit-row.js';
import { GroupCommit } from './group-commit.js';
import type { ApprovalRecord, AuditCommit, ConnectionHealth, DurableRecords, StateHealth } from './state.js';
import { StateUnavailableError, withoutCredentials } from './state-unavailable.js';

/** Numbered migrations of the schema; the table `migrations` says how many ran. */
const MIGRATIONS = [
  `CREATE TABLE audit (
     id BIGSERIAL PRIMARY KEY,
     time BIGINT NOT NULL,
     identity TEXT NOT NULL,
     session TEXT NOT NULL,
     mode TEXT NOT NULL,
     workspace TEXT,
     tool TEXT NOT NULL,
     server TEXT NOT NULL,
     arguments_redacted TEXT NOT NULL,
     arguments_sha256 TEXT NOT NULL,
     decision TEXT NOT NULL,
     rule TEXT NOT NULL,
     approval TEXT,
     outcome TEXT NOT NULL,
     error TEXT,
     duration_ms DOUBLE PRECISION NOT NULL
   );
   CREATE INDEX audit_time ON audit (time);
   CREATE INDEX audit_identity ON audit (identity, time);
   CREATE INDEX audit_tool ON audit (tool, time);
   CREATE TABLE approvals (
     seq BIGSERIAL,
     id TEXT PRIMARY KEY,
     session TEXT NOT NULL,
     identity TEXT NOT NULL,
     workspace TEXT,
     mode TEXT NOT NULL,
     tool TEXT NOT NULL,
     server TEXT NOT NULL,
     arguments TEXT NOT NULL,
     reason TEXT NOT NULL,
     channel TEXT NOT NULL,
     status TEXT NOT NULL,
     created_at BIGINT NOT NULL,
     expires_at BIGINT NOT NULL,
     decided_at BIGINT,
     decided_by TEXT,
     decision_reason TEXT
   );
   CREATE INDEX approvals_created ON approvals (created_at);`,
];

/** Any 64-bit number, the same for every toolmesh: migrations of one schema run one at a time. */
const MIGRATION_LOCK = 0x746f6f6c6d657368n;

interface ApprovalRow {
  id: string;
  session: string;
  identity: string;
  workspace: string | null;
  mode: string;
  tool: string;
  server: string;
  arguments: string;
  reason: string;
  channel: ApprovalRecord['channel'];
  status: ApprovalRecord['status'];
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  decision_reason: string | null;
}

function approvalOf(row: ApprovalRow): ApprovalRecord {
  return {
    id: row.id,
    session: row.session,
    identity: row.identity,
    ...(row.workspace !== null && { workspace: row.workspace }),
    mode: row.mode,
    tool: row.tool,
    server: row.server,
    arguments: JSON.parse(row.arguments) as Record<string, unknown>,
    reason: row.reason,
    channel: row.channel,
    status: row.status,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    ...(row.decided_at !== null && { decidedAt: Number(row.decided_at) }),
    ...(row.decided_by !== null && { decidedBy: row.decided_by }),
    ...(row.decision_reason !== null && { decisionReason: row.decision_reason }),
  };
}

/** A tool-name glob (`*`, `?`) as an anchored POSIX regular expression. */
function globRegex(glob: string): string {
  const literal = (char: string) => char.replace(/[.+^${}()|[\]\\*?]/g, '\\$&');
  return `^${[...glob].map((char) => (char === '*' ? '.*' : char === '?' ? '.' : literal(char))).join('')}$`;
}

/** What to do about a PostgreSQL error, by what it says. */
export function postgresFix(message: string): string {
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|timeout|terminat/i.test(message))
    return 'check that PostgreSQL runs at that address (pg_isready -d URL) and that state.postgres or --postgres names it';
  if (/password|authentication/i.test(message))
    return 'put the right user and password in the URL (postgres://user:password@host:5432/db)';
  if (/database .* does not exist/i.test(message))
    return 'create the database (createdb NAME) or name one that exists';
  if (/permission denied/i.test(message))
    return 'grant the user CREATE on the database, or create the schema for it';
  return 'check the URL in state.postgres or --postgres, and the PostgreSQL server log';
}

export interface PostgresRecordsOptions {
  /** The schema the tables live in, created when missing; tests use one per run. */
  schema?: string;
  /** When a record counts as kept (default `buffered`): see AuditCommit. */
  commit?: AuditCommit;
}

/** The audit table's columns, in the order auditRowValues gives them, with their types (for the arrays of a batch). */
const AUDIT_COLUMNS = [
  ['time', 'bigint'],
  ['identity', 'text'],
  ['session', 'text'],
  ['mode', 'text'],
  ['workspace', 'text'],
  ['tool', 'text'],
  ['server', 'text'],
  ['arguments_redacted', 'text'],
  ['arguments_sha256', 'text'],
  ['decision', 'text'],
  ['rule', 'text'],
  ['approval', 'text'],
  ['outcome', 'text'],
  ['error', 'text'],
  ['duration_ms', 'float8'],
] as const;

/**
 * The audit log and the decided approvals of a whole fleet in PostgreSQL. A write resolves only
 * once PostgreSQL committed it (buffered or flushed, as configured), so an acknowledged record
 * survives any replica or Redis dying; a write PostgreSQL did not commit rejects, and the call
 * that made it fails closed. Audit records of calls that end together are committed together,
 * by one prepared INSERT (group commit).
 */
export class PostgresRecords implements DurableRecords {
  readonly location: string;
  readonly commit: AuditCommit;
  readonly #pool: pg.Pool;
  readonly #schema: string;
  readonly #audit: GroupCommit<AuditRecord>;
  #closed = false;

  private constructor(url: string, pool: pg.Pool, schema: string, commit: AuditCommit) {
    this.location = withoutCredentials(url);
    this.commit = commit;
    this.#pool = pool;
    this.#schema = schema;
    this.#audit = new GroupCommit((records) => this.#insertAudit(records));
  }

  /** Connects, creates the schema or brings it up to date; a wrong URL or a server down says what to fix. */
  static async open(url: string, options: PostgresRecordsOptions = {}): Promise<PostgresRecords> {
    const schema = options.schema ?? 'toolmesh';
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
      throw new Error(`PostgreSQL schema name ${schema} must be lowercase letters, digits and _`);
    const commit = options.commit ?? 'buffered';
    const pool = new pg.Pool({
      connectionString: url,
      max: 8,
      connectionTimeoutMillis: 2000,
      query_timeout: 5000,
      application_name: 'toolmesh',
      // Set for each of toolmesh's own connections, whatever the server's default.
      options: `-c synchronous_commit=${commit === 'flushed' ? 'on' : 'off'}`,
    });
    // An idle connection's error (the server restarting) is reported by the next query that fails.
    pool.on('error', () => undefined);
    const records = new PostgresRecords(url, pool, schema, commit);
    try {
      await records.#migrate();
    } catch (error) {
      await pool.end().catch(() => undefined);
      const message = (error as Error).message;
      throw new StateUnavailableError(
        'postgres',
        `cannot open toolmesh's audit in PostgreSQL at ${records.location} (schema ${schema}): ${message}; ${postgresFix(message)}`,
        { cause: error },
      );
    }
    return records;
  }

  async #migrate(): Promise<void> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.#schema}`);
      await client.query(`SET LOCAL search_path TO ${this.#schema}`);
      await client.query('CREATE TABLE IF NOT EXISTS migrations (version INTEGER NOT NULL)');
      const { rows } = await client.query<{ version: number }>(
        'SELECT max(version) AS version FROM migrations',
      );
      const done = rows[0]?.version ?? 0;
      if (done > MIGRATIONS.length)
        throw new Error(
          `schema ${this.#schema} is at version ${done}, newer than this toolmesh knows (${MIGRATIONS.length}); upgrade toolmesh`,
        );
      for (let version = done + 1; version <= MIGRATIONS.length; version++) {
        await client.query(MIGRATIONS[version - 1] as string);
        await client.query('INSERT INTO migrations (version) VALUES ($1)', [version]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async #query<Row extends pg.QueryResultRow>(
    text: string,
    values: unknown[],
    name?: string,
  ): Promise<pg.QueryResult<Row>> {
    try {
      return await this.#pool.query<Row>({ text, values, ...(name && { name }) });
    } catch (error) {
      const message = (error as Error).message;
      throw new StateUnavailableError(
        'postgres',
        `toolmesh's audit in PostgreSQL at ${this.location} did not take the query (${message}), so nothing was kept; ${postgresFix(message)}`,
        { cause: error },
      );
    }
  }

  #table(name: string): string {
    return `${this.#schema}.${name}`;
  }

  recordAudit(record: AuditRecord): Promise<void> {
    return this.#audit.add(record);
  }

  /**
   * One prepared statement per batch, prepared once per connection: a record alone is one row of
   * VALUES; several are an INSERT of arrays (unnest), one statement for any number of records,
   * whose arrays cost PostgreSQL more to read than one row.
   */
  async #insertAudit(records: AuditRecord[]): Promise<void> {
    const rows = records.map(auditRowValues);
    const columns = AUDIT_COLUMNS.map(([column]) => column).join(', ');
    if (rows.length === 1) {
      await this.#query(
        `INSERT INTO ${this.#table('audit')} (${columns})
         VALUES (${AUDIT_COLUMNS.map((_, index) => `$${index + 1}`).join(', ')})`,
        rows[0] as unknown[],
        `toolmesh_audit_row_${this.#schema}`,
      );
      return;
    }
    await this.#query(
      `INSERT INTO ${this.#table('audit')} (${columns})
       SELECT * FROM unnest(${AUDIT_COLUMNS.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ')})`,
      AUDIT_COLUMNS.map((_, column) => rows.map((row) => row[column])),
      `toolmesh_audit_rows_${this.#schema}`,
    );
  }

  async auditRecords(query: AuditQuery): Promise<AuditRecord[]> {
    const { rows } = await this.#query<AuditRow>(
      `SELECT * FROM ${this.#table('audit')}
       WHERE time >= $1 AND ($2::bigint IS NULL OR time < $2)
         AND ($3::text IS NULL OR tool ~ $3) AND ($4::text IS NULL OR identity = $4)
         AND ($5::text IS NULL OR server = $5) AND ($6::text IS NULL OR outcome = $6)
         AND ($7::text IS NULL OR mode = $7) AND ($8::text IS NULL OR workspace = $8)
         AND ($11::text[] IS NULL OR workspace = ANY($11))
       ORDER BY time DESC, id DESC LIMIT $9 OFFSET $10`,
      [
        query.since ?? 0,
        query.until ?? null,
        query.tool === undefined ? null : globRegex(query.tool),
        query.identity ?? null,
        query.server ?? null,
        query.outcome ?? null,
        query.mode ?? null,
        query.workspace ?? null,
        query.limit,
        query.offset ?? 0,
        query.workspaces ?? null,
      ],
    );
    return rows.map(auditOf);
  }

  async pruneAudit(before: number): Promise<number> {
    const { rowCount } = await this.#query(`DELETE FROM ${this.#table('audit')} WHERE time < $1`, [before]);
    return rowCount ?? 0;
  }

  async archiveApproval(record: ApprovalRecord): Promise<void> {
    await this.#query(
      `INSERT INTO ${this.#table('approvals')} (id, session, identity, workspace, mode, tool, server, arguments,
         reason, channel, status, created_at, expires_at, decided_at, decided_by, decision_reason)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
       ON CONFLICT (id) DO UPDATE SET status = excluded.status, decided_at = excluded.decided_at,
         decided_by = excluded.decided_by, decision_reason = excluded.decision_reason`,
      [
        record.id,
        record.session,
        record.identity,
        record.workspace ?? null,
        record.mode,
        record.tool,
        record.server,
        JSON.stringify(record.arguments),
        record.reason,
        record.channel,
        record.status,
        record.createdAt,
        record.expiresAt,
        record.decidedAt ?? null,
        record.decidedBy ?? null,
        record.decisionReason ?? null,
      ],
    );
  }

  async approvalHistory({ since = 0, limit }: { since?: number; limit: number }): Promise<ApprovalRecord[]> {
    const { rows } = await this.#query<ApprovalRow>(
      `SELECT * FROM ${this.#table('approvals')} WHERE created_at >= $1 ORDER BY created_at DESC, seq DESC LIMIT $2`,
      [since, limit],
    );
    return rows.map(approvalOf);
  }

  async health(): Promise<StateHealth> {
    return { postgres: await this.#health() };
  }

  async #health(): Promise<ConnectionHealth> {
    const started = performance.now();
    try {
      await this.#pool.query('SELECT 1');
      const { rows } = await this.#pool.query<{ version: number | null }>(
        `SELECT max(version) AS version FROM ${this.#table('migrations')}`,
      );
      const version = rows[0]?.version ?? 0;
      if (version !== MIGRATIONS.length)
        return {
          ok: false,
          detail: `schema ${this.#schema} at ${this.location} is at version ${version}, this toolmesh needs ${MIGRATIONS.length}; restart toolmesh to migrate it`,
        };
      const { rows: commit } = await this.#pool.query<{ synchronous_commit: string }>(
        'SHOW synchronous_commit',
      );
      return {
        ok: true,
        detail: `select 1 on ${this.location} in ${(performance.now() - started).toFixed(1)} ms; schema ${this.#schema} at version ${version}; audit records acknowledged once ${this.commit} (synchronous_commit ${commit[0]?.synchronous_commit})`,
      };
    } catch (error) {
      const message = (error as Error).message;
      return {
        ok: false,
        detail: `PostgreSQL at ${this.location} does not answer: ${message}; ${postgresFix(message)}`,
      };
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}
