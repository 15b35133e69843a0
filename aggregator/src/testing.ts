// @toolmesh/aggregator/testing: the machine's Redis and PostgreSQL as the aggregator's tests and
// the benchmarks use them, each run under a key prefix and a schema of its own, removed after.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { OpenStateOptions } from './state/open-state.js';

/** The machine's shared Redis and PostgreSQL (REDIS_URL, POSTGRES_URL). */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The three ways to keep the state: a SQLite file, Redis (audit in SQLite), Redis with the audit in PostgreSQL. */
export type StateKind = 'sqlite' | 'redis' | 'redis+postgres';

export const STATE_KINDS: StateKind[] = ['sqlite', 'redis', 'redis+postgres'];

/** Where a run's store lives, as `openState` takes it (and a child process, as JSON). */
export type RunStateSettings = Required<Pick<OpenStateOptions, 'file'>> &
  Pick<OpenStateOptions, 'redis' | 'redisKeyPrefix' | 'postgres' | 'postgresSchema'>;

/**
 * The settings of an empty store of `kind` that no other run sees: its SQLite file in `folder`,
 * a key prefix and a schema tagged `tag` (default: this process and a random part).
 */
export function runStateSettings(
  kind: StateKind,
  folder: string,
  tag = `${process.pid}_${randomBytes(4).toString('hex')}`,
): RunStateSettings {
  return {
    file: path.join(folder, 'state.sqlite'),
    ...(kind !== 'sqlite' && { redis: REDIS_URL, redisKeyPrefix: `toolmesh-test:${tag}:` }),
    ...(kind === 'redis+postgres' && { postgres: POSTGRES_URL, postgresSchema: `toolmesh_test_${tag}` }),
  };
}

/** Deletes every key under `prefix`. */
export async function deleteKeys(prefix: string, url = REDIS_URL): Promise<void> {
  const client = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

export async function dropSchema(schema: string, url = POSTGRES_URL): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/** Removes what a run's store wrote in Redis and PostgreSQL (its SQLite file goes with its folder). */
export async function removeRunState(settings: OpenStateOptions): Promise<void> {
  if (settings.redisKeyPrefix) await deleteKeys(settings.redisKeyPrefix, settings.redis);
  if (settings.postgresSchema) await dropSchema(settings.postgresSchema, settings.postgres);
}
