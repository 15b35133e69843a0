// A 2026-07-28 call parked on one replica for its client's answer, retried through another: two
// real `toolmesh serve` replicas on one config, one Redis (a key prefix of their own) and one
// data directory. The retry is carried to the replica that holds the call while it lives; once
// that one is gone, the client is told the call was cut off and to call again.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, serveToolmesh } from './harness.js';
import { answerText, roundTripCall } from './round-trip-call.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

type Replica = ReturnType<typeof serveToolmesh> & { mcp: string };

let folder: string;
let config: string;
let prefix: string;
let token: string;
const replicas: Replica[] = [];

async function startReplica(): Promise<Replica> {
  const served = serveToolmesh(['--config', config, '--transport', 'http', '--port', '0'], folder, {
    TOOLMESH_DATA_DIR: path.join(folder, 'data'),
    TOOLMESH_REDIS_PREFIX: prefix,
  });
  const mcp = await served.url;
  token = await served.token;
  const replica = { ...served, mcp };
  replicas.push(replica);
  return replica;
}

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-relay-fleet-'));
  mkdirSync(path.join(folder, 'data'));
  prefix = `toolmesh-test-${randomBytes(4).toString('hex')}:`;
  config = path.join(folder, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { fixture: fixture('fixture') },
      state: { redis: REDIS_URL },
    }),
  );
  // The first start makes the local token the other then reads.
  await startReplica();
  await startReplica();
}, 120_000);
afterAll(async () => {
  for (const replica of replicas) replica.child.kill('SIGKILL');
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  rmSync(folder, { recursive: true, force: true });
});

/** Parks fixture__ask_user on `replica`: the question's key and the state to send back. */
async function parkOn(replica: Replica) {
  const first = await roundTripCall(replica.mcp, token, 'fixture__ask_user', {});
  expect(first.result?.resultType, JSON.stringify(first)).toBe('input_required');
  const key = Object.keys(first.result?.inputRequests ?? {})[0] as string;
  return { key, requestState: first.result?.requestState as string };
}

describe('a parked call retried through another replica', () => {
  it('is resumed on the replica that holds it, and cut off once that one is gone', {
    timeout: 120_000,
  }, async () => {
    const [holder, other] = replicas as [Replica, Replica];
    const parked = await parkOn(holder);
    const resumed = await roundTripCall(
      other.mcp,
      token,
      'fixture__ask_user',
      {},
      {
        requestState: parked.requestState,
        inputResponses: { [parked.key]: { action: 'accept', content: { colour: 'teal' } } },
      },
    );
    expect(answerText(resumed), JSON.stringify(resumed)).toBe('accept: teal');

    const stranded = await parkOn(holder);
    holder.child.kill('SIGKILL');
    await new Promise((resolve) => holder.child.once('exit', resolve));
    const cut = await roundTripCall(
      other.mcp,
      token,
      'fixture__ask_user',
      {},
      {
        requestState: stranded.requestState,
        inputResponses: { [stranded.key]: { action: 'accept', content: { colour: 'teal' } } },
      },
    );
    expect(cut.result?.isError, JSON.stringify(cut)).toBe(true);
    expect(answerText(cut)).toMatch(/the call was cut off.*Call it again without requestState/s);
  });
});
