import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Authenticator, AuthRefusal } from '../src/auth/authenticator.js';
import { openTokenRegistry } from '../src/auth/open-token-registry.js';
import { RateLimiter } from '../src/auth/rate-limiter.js';
import { RedisRateLimiter } from '../src/auth/redis-rate-limiter.js';
import { sharedRateLimit } from '../src/auth/shared-rate-limit.js';
import type { TokenRegistry } from '../src/auth/token-store.js';
import { PrivateRedis } from './private-redis.js';
import { deleteKeys, REDIS_URL } from './state-backends.js';

/** Until `check` passes; the test's timeout bounds it. */
async function eventually(check: () => unknown): Promise<void> {
  for (;;) {
    try {
      await check();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

let prefix: string;
let folder: string;
const closers: (() => Promise<void>)[] = [];

beforeEach(() => {
  prefix = `toolmesh-test:${process.pid}_${randomBytes(4).toString('hex')}:`;
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-auth-'));
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await deleteKeys(prefix);
  rmSync(folder, { recursive: true, force: true });
});

async function replicaTokens(redis = REDIS_URL): Promise<TokenRegistry> {
  const store = await openTokenRegistry({ dataDir: folder, redis, redisKeyPrefix: prefix });
  closers.push(() => store.close());
  return store;
}

function authenticatorOn(store: TokenRegistry): Authenticator {
  return new Authenticator(store, () => [], new RateLimiter(() => 1_000_000));
}

describe('tokens in Redis', () => {
  it('are made on one replica, accepted by another, and refused by every replica within a second of a revocation', async () => {
    const [one, two, three] = await Promise.all([replicaTokens(), replicaTokens(), replicaTokens()]);
    const { secret } = await (one as TokenRegistry).create({ name: 'ana', approver: false });
    const replicas = [one, two, three].map((store) => authenticatorOn(store as TokenRegistry));
    await eventually(() => {
      for (const replica of replicas) expect(replica.authenticate(`Bearer ${secret}`).identity).toBe('ana');
    });
    await expect((two as TokenRegistry).create({ name: 'ana', approver: true })).rejects.toThrow(
      /a token named ana exists already/,
    );
    expect(await (three as TokenRegistry).revoke('ana')).toBe(true);
    await eventually(() => {
      for (const replica of replicas)
        expect(() => replica.authenticate(`Bearer ${secret}`)).toThrow(
          /revoked, or toolmesh never issued it/,
        );
    });
    expect(await (one as TokenRegistry).revoke('ana')).toBe(false);
  });

  it('refuse every request with 503 once Redis cannot say whether a token was revoked', async () => {
    const redis = await PrivateRedis.start();
    closers.push(() => redis.stop());
    const store = await replicaTokens(redis.url);
    const { secret } = await store.create({ name: 'ana', approver: false });
    const replica = authenticatorOn(store);
    expect(replica.authenticate(`Bearer ${secret}`).identity).toBe('ana');
    await redis.stop();
    await eventually(() => {
      let refusal: unknown;
      try {
        replica.authenticate(`Bearer ${secret}`);
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(AuthRefusal);
      expect(refusal).toMatchObject({
        status: 503,
        message: expect.stringMatching(/tokens in Redis .* Check that Redis runs/),
      });
    });
  });

  it('judge a request once, on the copy it came in on, however long it then waits', async () => {
    const redis = await PrivateRedis.start();
    closers.push(() => redis.stop());
    const store = await replicaTokens(redis.url);
    const { secret } = await store.create({ name: 'ana', approver: false });
    const replica = authenticatorOn(store);
    const waiting = { headers: { authorization: `Bearer ${secret}` } };
    expect(replica.judge(waiting).identity).toBe('ana');
    await redis.stop();
    const arriving = { headers: { authorization: `Bearer ${secret}` } };
    await eventually(() => expect(() => replica.principalOf(arriving)).toThrow(AuthRefusal));
    // The request judged before the copy aged keeps its answer; one that comes now is refused.
    expect(replica.principalOf(waiting).identity).toBe('ana');
  });
});

describe('a rate limit in Redis', () => {
  it('is one budget for three replicas: together they never accept more than the allowance', async () => {
    const perMinute = 30;
    const limiters = await Promise.all(
      [1, 2, 3].map(() => RedisRateLimiter.open(REDIS_URL, () => perMinute, { keyPrefix: prefix })),
    );
    for (const limiter of limiters) closers.push(() => limiter.close());
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 90 }, (_, index) => (limiters[index % 3] as RedisRateLimiter).take('token-a')),
    );
    const elapsedMs = Date.now() - started;
    const accepted = answers.filter((wait) => wait === 0).length;
    // The whole minute's allowance, plus what refilled while the requests ran (one per 2 s).
    expect(accepted).toBeGreaterThanOrEqual(perMinute);
    expect(accepted).toBeLessThanOrEqual(perMinute + Math.ceil(elapsedMs / 2000));
    for (const wait of answers.filter((wait) => wait > 0)) expect(wait).toBeGreaterThanOrEqual(1);
    // Another caller has a budget of its own.
    expect(await (limiters[0] as RedisRateLimiter).take('token-b')).toBe(0);
  });

  it('takes a request from its budget once, however many steps ask (an early forward, then the front)', async () => {
    const store = await replicaTokens();
    const { secret } = await store.create({ name: 'ana', approver: false });
    const limiter = await RedisRateLimiter.open(REDIS_URL, () => 1, { keyPrefix: prefix });
    closers.push(() => limiter.close());
    const check = sharedRateLimit(
      new Authenticator(store, () => [], { requestsPerMinute: () => 1, take: () => 0 }),
      limiter,
    );
    const request = () => ({ headers: { authorization: `Bearer ${secret}` } }) as IncomingMessage;
    const first = request();
    expect(await check(first)).toBeUndefined();
    expect(await check(first)).toBeUndefined();
    // The one request a minute was spent: another is refused.
    expect((await check(request()))?.status).toBe(429);
  });
});
