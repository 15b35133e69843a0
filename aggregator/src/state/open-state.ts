import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { dataDirectory } from '@toolmesh/core';
import { sharedNamesFromEnvironment } from './shared-names.js';
import { SqliteState } from './sqlite-state.js';
import type { AggregatorState, AuditCommit, DurableRecords, LiveState } from './state.js';

/** The config's `state` section, or the --redis / --postgres flags. */
export interface StateSettings {
  redis?: string;
  postgres?: string;
  /** Before every Redis key and channel (`state.redisPrefix`; default: $TOOLMESH_REDIS_PREFIX, else `toolmesh:`); tests use one per run. */
  redisKeyPrefix?: string;
  /** When PostgreSQL's acknowledgement of an audit record counts (default `buffered`). */
  auditCommit?: AuditCommit;
}

export interface OpenStateOptions extends StateSettings {
  dataDir?: string;
  /** The SQLite file, instead of `<dataDir>/aggregator/state.sqlite`. */
  file?: string;
  /** The PostgreSQL schema of the tables (default: $TOOLMESH_POSTGRES_SCHEMA, else `toolmesh`); tests use one per run. */
  postgresSchema?: string;
  /** The clock that stamps an approval's `createdAt`; tests pass their own. */
  now?: () => number;
}

function sqliteFile(options: OpenStateOptions): string {
  const file = options.file ?? path.join(options.dataDir ?? dataDirectory(), 'aggregator', 'state.sqlite');
  if (!options.file) mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  return file;
}

/**
 * The state toolmesh keeps. By default a SQLite file in the data directory, in a folder only
 * the user can read (it holds tool arguments). With `redis`, the live part (sessions, approvals,
 * approvers) is shared by every replica; with `postgres`, the audit and the approvals history
 * are. Every command that opens the state opens it here.
 */
export async function openState(given: OpenStateOptions = {}): Promise<AggregatorState> {
  const options = { ...sharedNamesFromEnvironment(), ...given };
  const now = options.now && { now: options.now };
  if (!options.redis && !options.postgres) return SqliteState.open(sqliteFile(options), { ...now });
  // Loaded only when used: a command's start-up time is mostly loading modules.
  const [{ ComposedState }, { PostgresRecords }, { RedisState }] = await Promise.all([
    import('./composed-state.js'),
    import('./postgres-records.js'),
    import('./redis-state.js'),
  ]);
  const records: DurableRecords = options.postgres
    ? await PostgresRecords.open(options.postgres, {
        ...(options.postgresSchema && { schema: options.postgresSchema }),
        ...(options.auditCommit && { commit: options.auditCommit }),
      })
    : SqliteState.open(sqliteFile(options), { ...now });
  let live: LiveState;
  try {
    live = options.redis
      ? await RedisState.open(options.redis, {
          ...(options.redisKeyPrefix && { keyPrefix: options.redisKeyPrefix }),
          ...now,
        })
      : SqliteState.open(sqliteFile(options), { ...now });
  } catch (error) {
    await records.close();
    throw error;
  }
  return new ComposedState(live, records);
}

/**
 * What a person should know about where the state lives, for the start banner and doctor;
 * undefined when the setup needs no remark.
 */
export function stateNotice(settings: StateSettings): string | undefined {
  if (settings.redis && !settings.postgres)
    return "the audit log and the approvals history stay in this replica's own SQLite file: set state.postgres (or --postgres URL) for one durable audit of the whole fleet that toolmesh audit reads from any replica";
  if (settings.postgres && !settings.redis)
    return "sessions, pending approvals, tokens and rate limits stay in this machine's SQLite file: set state.redis (or --redis URL) too before running several replicas";
  return undefined;
}
