import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { openState } from '../src/state/open-state.js';
import type { AggregatorState } from '../src/state/state.js';

/** The machine's shared Redis and PostgreSQL; every run keeps to its own key prefix and schema. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** One store, as several processes would share it: each `open()` is another handle with its own connections. */
export interface StateBackend {
  open(): Promise<AggregatorState>;
  /** The settings `openState` takes, for a child process to open the same store. */
  readonly settings: Record<string, string>;
  /** Closes every handle and removes everything this store wrote (file, keys, schema). */
  dispose(): Promise<void>;
}

export type BackendName = 'sqlite' | 'redis' | 'redis+postgres';

export const BACKENDS: BackendName[] = ['sqlite', 'redis', 'redis+postgres'];

/** A store of the kind named, empty, that no other test run sees. */
export function newBackend(name: BackendName, now: () => number = Date.now): StateBackend {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-state-'));
  const tag = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const settings: Record<string, string> = {
    file: path.join(folder, 'state.sqlite'),
    ...(name !== 'sqlite' && { redis: REDIS_URL, redisKeyPrefix: `toolmesh-test:${tag}:` }),
    ...(name === 'redis+postgres' && { postgres: POSTGRES_URL, postgresSchema: `toolmesh_test_${tag}` }),
  };
  const opened: AggregatorState[] = [];
  return {
    settings,
    async open() {
      const state = await openState({ ...settings, now });
      opened.push(state);
      return state;
    },
    async dispose() {
      await Promise.all(opened.splice(0).map((state) => state.close()));
      if (settings.redisKeyPrefix) await deleteKeys(settings.redisKeyPrefix);
      if (settings.postgresSchema) await dropSchema(settings.postgresSchema);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

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

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
