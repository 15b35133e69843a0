import type { InitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Redis } from 'ioredis';
import type { ReplicaBeat } from './replica-lease.js';

/** What another replica needs to carry a 2025 session on without its client initializing again. */
export interface SessionRecord {
  exposure?: 'all' | 'discovery';
  workspace?: string;
  identity: string;
  allowedModes?: readonly string[];
  /** Who may use it: the front's caller key (a token's hash), when authentication is on. */
  caller?: string;
  /** The client's initialize request: its capabilities, version and protocol version. */
  initialize: InitializeRequest['params'];
}

export interface DirectoryEntry {
  /** The replica that serves it; '' while nobody does (handed over by a replica that left). */
  owner: string;
  /** Its mode now: a mode switch changes it after the session began. */
  mode: string;
  record: SessionRecord;
  /** The owner's heartbeat as read with the entry; undefined when the owner has none (or there is no owner). */
  ownerBeat?: ReplicaBeat;
}

// A session's entry and its owner's heartbeat, in one round trip. KEYS: the session. ARGV: the heartbeat prefix.
const LOOKUP = `
local found = redis.call('HMGET', KEYS[1], 'owner', 'mode', 'record')
if not found[1] or not found[3] then return false end
local beat = ''
if found[1] ~= '' then beat = redis.call('GET', ARGV[1] .. found[1]) or '' end
return {found[1], found[2] or '', found[3], beat}`;

// A /sse stream's owner and the owner's heartbeat, in one round trip. KEYS: the stream. ARGV: the heartbeat prefix.
const LOOKUP_STREAM = `
local owner = redis.call('GET', KEYS[1])
if not owner then return false end
return {owner, redis.call('GET', ARGV[1] .. owner) or ''}`;

type LookupCommand = (
  session: string,
  heartbeatPrefix: string,
) => Promise<[string, string, string, string] | null>;

// Takes a session whose owner has no heartbeat (or none at all) for ARGV[1]; returns the owner after.
const CLAIM = `
local owner = redis.call('HGET', KEYS[1], 'owner')
if not owner then return false end
if owner ~= '' and owner ~= ARGV[1] and redis.call('EXISTS', ARGV[2] .. owner) == 1 then return owner end
redis.call('HSET', KEYS[1], 'owner', ARGV[1])
return ARGV[1]`;

// Records a session again (owner ARGV[1], mode ARGV[2], record ARGV[3], for ARGV[4] ms; listed
// in KEYS[2] until ARGV[5], its id ARGV[6]) unless it is there: never over an entry another
// replica wrote meanwhile (a refresh may have left only the mode, which does not count).
const RESTORE = `
if redis.call('HEXISTS', KEYS[1], 'record') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'mode', ARGV[2], 'record', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[6])
return 1`;

// The sessions listed in KEYS[1] (latest active first, at most ARGV[2]) with their owners and
// whether each owner has a heartbeat; drops from the list those expired (before ARGV[1]) or
// gone. ARGV[3]: the sessions' key prefix; ARGV[4]: the heartbeat prefix.
const LIST = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local listed = {}
for _, id in ipairs(redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)) do
  local found = redis.call('HMGET', ARGV[3] .. id, 'owner', 'mode', 'record')
  if found[1] and found[3] then
    local alive = 0
    if found[1] ~= '' and redis.call('EXISTS', ARGV[4] .. found[1]) == 1 then alive = 1 end
    table.insert(listed, {id, found[1], found[2] or '', found[3], alive})
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return listed`;

// Gives each session ARGV[1] still owns to the replica named beside it (ARGV[i + 1]; '' for nobody).
const HAND_OVER = `
local count = 0
for i, key in ipairs(KEYS) do
  if redis.call('HGET', key, 'owner') == ARGV[1] then
    redis.call('HSET', key, 'owner', ARGV[i + 1])
    count = count + 1
  end
end
return count`;

/** A session as the fleet's directory lists it. */
export interface ListedSession extends DirectoryEntry {
  id: string;
  /** Whether its owner has a heartbeat: a session of a replica gone is taken over at its next request. */
  ownerAlive: boolean;
}

/**
 * The fleet's sessions in Redis: one hash per session (owner, mode, record) that expires when
 * the session has been idle as long as a replica keeps an idle session, and a list of them (a
 * sorted set by expiry) for the dashboard, which reads the fleet's sessions without a SCAN.
 */
export class SessionDirectory {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly idleMs: number,
    /** Where replicas' heartbeats are (ReplicaLease.heartbeatPrefix). */
    private readonly heartbeatPrefix: string,
  ) {
    redis.defineCommand('toolmeshLookupSession', { numberOfKeys: 1, lua: LOOKUP });
    redis.defineCommand('toolmeshLookupStream', { numberOfKeys: 1, lua: LOOKUP_STREAM });
  }

  #key(sessionId: string): string {
    return `${this.prefix}session:${sessionId}`;
  }

  get #listKey(): string {
    return `${this.prefix}sessions`;
  }

  /** When a session refreshed now expires, the score of its place in the list. */
  #expiry(): number {
    return Date.now() + this.idleMs;
  }

  async add(sessionId: string, owner: string, mode: string, record: SessionRecord): Promise<void> {
    await this.redis
      .multi()
      .hset(this.#key(sessionId), { owner, mode, record: JSON.stringify(record) })
      .pexpire(this.#key(sessionId), this.idleMs)
      .zadd(this.#listKey, this.#expiry(), sessionId)
      .exec();
  }

  /** The fleet's sessions, latest refreshed first, at most `limit`. */
  async list(limit: number): Promise<ListedSession[]> {
    const listed = (await this.redis.eval(
      LIST,
      1,
      this.#listKey,
      Date.now(),
      limit,
      this.#key(''),
      this.heartbeatPrefix,
    )) as Array<[string, string, string, string, number]>;
    return listed.map(([id, owner, mode, record, alive]) => ({
      id,
      owner,
      mode,
      record: JSON.parse(record) as SessionRecord,
      ownerAlive: alive === 1,
    }));
  }

  /** The session's entry with its owner's heartbeat (one round trip: it is on every forwarded request's path). */
  async lookup(sessionId: string): Promise<DirectoryEntry | undefined> {
    const lookup = (this.redis as unknown as { toolmeshLookupSession: LookupCommand }).toolmeshLookupSession;
    const found = await lookup.call(this.redis, this.#key(sessionId), this.heartbeatPrefix);
    if (!found) return undefined;
    const [owner, mode, record, beat] = found;
    return {
      owner,
      mode,
      record: JSON.parse(record) as SessionRecord,
      ...(beat !== '' && { ownerBeat: JSON.parse(beat) as ReplicaBeat }),
    };
  }

  /** Atomically takes the session for `replica` unless a live replica owns it; the owner after, or undefined when it is gone. */
  async claim(sessionId: string, replica: string, heartbeatPrefix: string): Promise<string | undefined> {
    const owner = await this.redis.eval(CLAIM, 1, this.#key(sessionId), replica, heartbeatPrefix);
    return typeof owner === 'string' ? owner : undefined;
  }

  /** Keeps the sessions alive in the directory and records their modes; run by their owner. */
  async refresh(sessions: ReadonlyArray<{ id: string; mode: string }>): Promise<void> {
    if (sessions.length === 0) return;
    const batch = this.redis.pipeline();
    for (const { id, mode } of sessions) {
      batch.hset(this.#key(id), 'mode', mode);
      batch.pexpire(this.#key(id), this.idleMs);
      batch.zadd(this.#listKey, this.#expiry(), id);
    }
    await batch.exec();
  }

  /** Writes this replica's sessions back where Redis lost them (it restarted empty); resolves to how many. */
  async restore(
    owner: string,
    sessions: ReadonlyArray<{ id: string; mode: string; record: SessionRecord }>,
  ): Promise<number> {
    if (sessions.length === 0) return 0;
    const batch = this.redis.pipeline();
    for (const { id, mode, record } of sessions)
      batch.eval(
        RESTORE,
        2,
        this.#key(id),
        this.#listKey,
        owner,
        mode,
        JSON.stringify(record),
        this.idleMs,
        this.#expiry(),
        id,
      );
    const results = (await batch.exec()) ?? [];
    return results.filter(([error, restored]) => !error && restored === 1).length;
  }

  /** Gives the sessions `replica` owns ('' for those nobody owns) to `heirs`, in turn; ownerless when there is none. */
  async handOver(sessionIds: readonly string[], replica: string, heirs: readonly string[]): Promise<number> {
    if (sessionIds.length === 0) return 0;
    return (await this.redis.eval(
      HAND_OVER,
      sessionIds.length,
      ...sessionIds.map((id) => this.#key(id)),
      replica,
      ...sessionIds.map((_, index) => heirs[index % heirs.length] ?? ''),
    )) as number;
  }

  async remove(sessionId: string): Promise<void> {
    await this.redis.multi().del(this.#key(sessionId)).zrem(this.#listKey, sessionId).exec();
  }

  #streamKey(sessionId: string): string {
    return `${this.prefix}stream:${sessionId}`;
  }

  /** A legacy `/sse` stream held by `owner`: it cannot move, so only its owner is kept. */
  async addStream(sessionId: string, owner: string): Promise<void> {
    await this.redis.set(this.#streamKey(sessionId), owner, 'PX', this.idleMs);
  }

  /** The replica holding the stream, with its heartbeat when it has one. */
  async streamOwner(sessionId: string): Promise<{ owner: string; ownerBeat?: ReplicaBeat } | undefined> {
    const lookup = (
      this.redis as unknown as {
        toolmeshLookupStream: (stream: string, heartbeatPrefix: string) => Promise<[string, string] | null>;
      }
    ).toolmeshLookupStream;
    const found = await lookup.call(this.redis, this.#streamKey(sessionId), this.heartbeatPrefix);
    if (!found) return undefined;
    const [owner, beat] = found;
    return { owner, ...(beat !== '' && { ownerBeat: JSON.parse(beat) as ReplicaBeat }) };
  }

  /**
   * Keeps the streams `owner` holds findable while they stay open; written whole each time, so a
   * Redis that lost them (restarted empty) has them again.
   */
  async refreshStreams(owner: string, sessionIds: Iterable<string>): Promise<void> {
    const batch = this.redis.pipeline();
    for (const id of sessionIds) batch.set(this.#streamKey(id), owner, 'PX', this.idleMs);
    if (batch.length > 0) await batch.exec();
  }

  async removeStream(sessionId: string): Promise<void> {
    await this.redis.del(this.#streamKey(sessionId));
  }
}
