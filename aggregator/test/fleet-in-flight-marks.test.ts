// The in-flight marks of fleet replicas against the machine's Redis (a key prefix of this run):
// the marks of one event-loop turn go to Redis as one HSET and one HDEL, a mark set and cleared
// within the turn never reaches it, and the replicas list themselves, so the marks of one that
// died are found (and taken once) without a SCAN of the keyspace.
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { createLogger } from '@toolmesh/core';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuditedCall } from '../src/audit/audited-call.js';
import { InFlightMarks } from '../src/fleet/in-flight-marks.js';
import { ReplicaLease } from '../src/fleet/replica-lease.js';
import { deleteKeys, REDIS_URL } from '../src/testing.js';
import { waitFor } from './fleet-rig.js';

const WITHIN = 20_000;
const runPrefix = `toolmesh-test:marks-${process.pid}-${randomBytes(4).toString('hex')}:`;
/** Each test's fleet keys, apart: a replica a test left listed is no other test's. */
let prefix = '';
const log = createLogger({ sink: () => {} });
const TIMING = { ttlMs: 9000, renewMs: 1000 };

let redis: Redis;
let monitor: Socket | undefined;
/** Every command Redis ran on a key of this run, as sent (lower-case name first). */
const seen: string[][] = [];

/**
 * Redis's MONITOR feed on a connection of its own (a plain socket: ioredis's monitor mode can
 * take a feed line for a reply on a busy machine), one `+time [db addr] "name" "arg" …` per line.
 */
async function watchCommands(): Promise<Socket> {
  const { hostname, port } = new URL(REDIS_URL);
  const socket = connect(Number(port || 6379), hostname);
  let partial = '';
  let started: () => void = () => undefined;
  const ok = new Promise<void>((resolve) => {
    started = resolve;
  });
  socket.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\r\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '+OK') started();
      const args = [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1] as string);
      if (args.some((arg) => arg.startsWith(runPrefix)))
        seen.push([String(args[0]).toLowerCase(), ...args.slice(1)]);
    }
  });
  socket.write('MONITOR\r\n');
  await ok;
  return socket;
}
const leases: ReplicaLease[] = [];

beforeAll(async () => {
  redis = new Redis(REDIS_URL);
  monitor = await watchCommands();
});

beforeEach(() => {
  prefix = `${runPrefix}${randomBytes(4).toString('hex')}:fleet:`;
});

afterEach(async () => {
  for (const lease of leases.splice(0)) await lease.stop();
});

afterAll(async () => {
  monitor?.destroy();
  redis?.disconnect();
  await deleteKeys(runPrefix);
});

/** A replica holding its lease, and its marks. */
async function replica(): Promise<{ lease: ReplicaLease; marks: InFlightMarks }> {
  const lease = new ReplicaLease(redis, prefix, TIMING, log, () => undefined);
  await lease.start('http://127.0.0.1:1');
  leases.push(lease);
  return { lease, marks: new InFlightMarks(redis, prefix, lease, log) };
}

/** A call past policy, marked in flight on `marks`, as the session server makes one. */
function callOn(marks: InFlightMarks, tool: string): AuditedCall {
  const call = new AuditedCall({ identity: 'tester', session: 's-1', mode: 'default' }, Date.now(), marks);
  call.decided({ tool, server: 'fx', arguments: { n: 1 } }, 'allow', 'test');
  return call;
}

/** The commands Redis ran on this run's keys since the last call, once every command sent before has run. */
async function commandsSince(): Promise<string[][]> {
  const sentinel = `${runPrefix}sentinel-${randomBytes(4).toString('hex')}`;
  await redis.echo(sentinel);
  await waitFor(
    async () => seen.some((command) => command.includes(sentinel)),
    WITHIN,
    'MONITOR to pass the sentinel',
  );
  return seen.splice(0).filter((command) => !command.includes(sentinel));
}

/** The commands among `commands` that wrote marks to `key` (the test's own reads left out). */
const writesTo = (key: string, commands: string[][]) =>
  commands.filter(([name, written]) => written === key && (name === 'hset' || name === 'hdel'));

const tools = async (key: string) =>
  Object.values(await redis.hgetall(key))
    .map((json) => JSON.parse(json).tool as string)
    .sort();

describe('in-flight marks', () => {
  it('go as one HSET per event-loop turn; a mark set and cleared within the turn never reaches Redis', {
    timeout: 60_000,
  }, async () => {
    const { lease, marks } = await replica();
    const own = `${prefix}inflight:${lease.id}`;
    await commandsSince();
    const first = callOn(marks, 'first');
    const second = callOn(marks, 'second');
    callOn(marks, 'brief').settled();
    await waitFor(async () => (await redis.hlen(own)) === 2, WITHIN, 'the two marks in Redis');
    expect(await tools(own)).toEqual(['first', 'second']);
    const marked = writesTo(own, await commandsSince());
    expect(marked).toHaveLength(1);
    expect(marked[0]?.[0]).toBe('hset');
    expect(marked[0]?.join(' ')).not.toContain('brief');

    // The next turn: both cleared and a third marked, on one write.
    first.settled();
    second.settled();
    callOn(marks, 'third');
    await waitFor(async () => (await redis.hlen(own)) === 1, WITHIN, 'only the third mark left');
    expect(await tools(own)).toEqual(['third']);
    const next = writesTo(own, await commandsSince());
    expect(next.map(([name]) => name).sort()).toEqual(['hdel', 'hset']);
    expect(next.find(([name]) => name === 'hdel')).toHaveLength(4);
  });

  it('a mark updated in the same turn it was sent goes once, as it last stood', {
    timeout: 60_000,
  }, async () => {
    const { lease, marks } = await replica();
    const own = `${prefix}inflight:${lease.id}`;
    await commandsSince();
    const call = callOn(marks, 'waits');
    call.awaitingApproval('approval-1');
    await waitFor(async () => (await redis.hlen(own)) === 1, WITHIN, 'the mark in Redis');
    expect(writesTo(own, await commandsSince())).toHaveLength(1);
    const [stored] = Object.values(await redis.hgetall(own));
    expect(JSON.parse(stored as string)).toMatchObject({ tool: 'waits', pendingApproval: 'approval-1' });
    call.settled();
    await waitFor(async () => (await redis.exists(own)) === 0, WITHIN, 'the mark cleared');
  });

  it('the marks of a replica without a heartbeat are taken once, found through the list of replicas', {
    timeout: 60_000,
  }, async () => {
    const asking = await replica();
    const alive = await replica();
    const dead = await replica();
    callOn(alive.marks, 'on the live one');
    callOn(dead.marks, 'cut off');
    callOn(asking.marks, 'on the asking one');
    for (const { lease } of [asking, alive, dead])
      await waitFor(
        async () => (await redis.hlen(`${prefix}inflight:${lease.id}`)) === 1,
        WITHIN,
        'the marks',
      );
    expect((await redis.smembers(asking.lease.listKey)).sort()).toEqual(
      [asking, alive, dead].map(({ lease }) => lease.id).sort(),
    );
    await dead.lease.stop();
    await commandsSince();

    const taken = await asking.marks.takeFromDead();
    expect([...taken.keys()]).toEqual([dead.lease.id]);
    expect(taken.get(dead.lease.id)).toEqual([expect.objectContaining({ tool: 'cut off', server: 'fx' })]);
    expect(await redis.sismember(asking.lease.listKey, dead.lease.id)).toBe(0);
    expect(await redis.exists(`${prefix}inflight:${dead.lease.id}`)).toBe(0);
    expect((await asking.marks.takeFromDead()).size).toBe(0);
    expect(await tools(`${prefix}inflight:${alive.lease.id}`)).toEqual(['on the live one']);
    expect(await tools(`${prefix}inflight:${asking.lease.id}`)).toEqual(['on the asking one']);
    expect((await commandsSince()).map(([name]) => name)).not.toContain('scan');
  });

  it('a replica struck off the list (Redis lost it, or it stalled) is listed again at its next renewal', {
    timeout: 60_000,
  }, async () => {
    const { lease } = await replica();
    await redis.srem(lease.listKey, lease.id);
    await lease.renewNow();
    expect(await redis.sismember(lease.listKey, lease.id)).toBe(1);
    const other = await replica();
    expect((await other.lease.others()).map(({ id }) => id)).toContain(lease.id);
  });
});
