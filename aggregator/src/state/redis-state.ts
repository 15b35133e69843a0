import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RedisAssociationStore } from './redis-associations.js';
import { RedisConnections, redisCall, redisHealth } from './redis-connection.js';
import type {
  ApprovalDecision,
  ApprovalRecord,
  LiveState,
  NewApproval,
  SessionRecord,
  StateHealth,
  TodoItem,
} from './state.js';
import { withoutCredentials } from './state-unavailable.js';

/**
 * Decides a pending approval in one step on the server, so of two deciders racing from any
 * processes exactly one finds it pending; the winner's decision is published to wake waiters.
 * KEYS: the approval, the pending set, the decision channel. ARGV: now, status, decidedBy,
 * anyTime ('1' for toolmesh's own closings), id, reason (absent when none).
 */
const DECIDE = `
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'pending' then return false end
if ARGV[4] ~= '1' and tonumber(redis.call('HGET', KEYS[1], 'expiresAt')) <= tonumber(ARGV[1]) then return false end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'decidedAt', ARGV[1], 'decidedBy', ARGV[3])
if ARGV[6] then redis.call('HSET', KEYS[1], 'decisionReason', ARGV[6]) end
redis.call('ZREM', KEYS[2], ARGV[5])
redis.call('PUBLISH', KEYS[3], ARGV[5])
return redis.call('HGETALL', KEYS[1])`;

/** Sets fields of a session only when it exists, renewing its idle expiry. KEYS: the session. ARGV: ttl ms, field, value. */
const UPDATE_SESSION = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

/** Raises an approver's heartbeat, never lowering it (ZADD GT). */
const TOUCH_APPROVER_ARGS = ['GT'] as const;

type DecideCommand = (
  approval: string,
  pending: string,
  channel: string,
  ...argv: string[]
) => Promise<string[] | null>;
type UpdateSessionCommand = (session: string, ttlMs: number, field: string, value: string) => Promise<number>;

export interface RedisStateOptions {
  /** Put before every key and channel, so several toolmesh fleets (or test runs) share one Redis. */
  keyPrefix?: string;
  /** A session not touched for this long is forgotten (and its todos with it). */
  sessionIdleMs?: number;
  /** How long a decided or expired approval stays readable after its expiry. */
  approvalRetentionMs?: number;
  now?: () => number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The channel on which replicas announce what discovery learnt from use. */
const LEARNT_CHANNEL = 'discovery:learnt';

/** How long a decision seen on the channel is remembered, for a waiter that looks just after it landed. */
const RECENT_DECISION_MS = 60_000;

function sessionOf(fields: Record<string, string>): SessionRecord | undefined {
  if (fields.id === undefined) return undefined;
  return {
    id: fields.id,
    mode: fields.mode as string,
    transport: fields.transport as SessionRecord['transport'],
    startedAt: Number(fields.startedAt),
    ...(fields.workspace !== undefined && { workspace: fields.workspace }),
    ...(fields.endedAt !== undefined && { endedAt: Number(fields.endedAt) }),
  };
}

function approvalOf(fields: Record<string, string>): ApprovalRecord | undefined {
  if (fields.record === undefined) return undefined;
  const opened = JSON.parse(fields.record) as Omit<ApprovalRecord, 'status'>;
  return {
    ...opened,
    status: fields.status as ApprovalRecord['status'],
    ...(fields.decidedAt !== undefined && { decidedAt: Number(fields.decidedAt) }),
    ...(fields.decidedBy !== undefined && { decidedBy: fields.decidedBy }),
    ...(fields.decisionReason !== undefined && { decisionReason: fields.decisionReason }),
  };
}

/** HGETALL's flat [field, value, …] answer from a script, as an object. */
function fieldsOf(flat: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let index = 0; index < flat.length; index += 2)
    fields[flat[index] as string] = flat[index + 1] as string;
  return fields;
}

const NEEDS_UNEXPIRED = new Set(['approved', 'denied']);

/**
 * The live part of the state in Redis, shared by every replica: sessions with an idle expiry,
 * todos, pending approvals decided atomically (a Lua script) with a pub/sub wake-up, approver
 * heartbeats. The durable part (audit, decided approvals) is not here: see ComposedState.
 */
export class RedisState implements LiveState {
  readonly location: string;
  readonly #connections: RedisConnections;
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #sessionIdleMs: number;
  readonly #approvalRetentionMs: number;
  readonly #now: () => number;
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #recentlyDecided = new Map<string, number>();
  #associations: RedisAssociationStore | undefined;
  #closed = false;

  private constructor(url: string, connections: RedisConnections, options: RedisStateOptions) {
    this.location = withoutCredentials(url);
    this.#connections = connections;
    this.#client = connections.client;
    this.#prefix = options.keyPrefix ?? 'toolmesh:';
    this.#sessionIdleMs = options.sessionIdleMs ?? DAY_MS;
    this.#approvalRetentionMs = options.approvalRetentionMs ?? DAY_MS;
    this.#now = options.now ?? Date.now;
    this.#client.defineCommand('toolmeshDecide', { numberOfKeys: 3, lua: DECIDE });
    this.#client.defineCommand('toolmeshUpdateSession', { numberOfKeys: 1, lua: UPDATE_SESSION });
  }

  /** Connects (two connections: commands, and the decision channel); an unreachable Redis says what to fix. */
  static async open(url: string, options: RedisStateOptions = {}): Promise<RedisState> {
    let state: RedisState | undefined;
    const prefix = options.keyPrefix ?? 'toolmesh:';
    const connections = await RedisConnections.open(url, {
      [`${prefix}decided`]: (id) => {
        if (state) state.#decided(id);
      },
      [`${prefix}${LEARNT_CHANNEL}`]: (message) => {
        if (state) state.#associations?.received(message);
      },
    });
    state = new RedisState(url, connections, options);
    return state;
  }

  /** What discovery learns from use, kept here for the whole fleet (see `RedisAssociationStore`). */
  associationStore(): RedisAssociationStore {
    this.#associations ??= new RedisAssociationStore(this.#client, {
      key: this.#key('discovery:associations'),
      channel: this.#key(LEARNT_CHANNEL),
      where: this.location,
    });
    return this.#associations;
  }

  #key(name: string): string {
    return `${this.#prefix}${name}`;
  }

  #call<T>(command: (client: Redis) => Promise<T>): Promise<T> {
    return redisCall(this.location, () => command(this.#client));
  }

  async saveSession(record: SessionRecord): Promise<void> {
    const key = this.#key(`session:${record.id}`);
    const fields: Record<string, string> = {
      id: record.id,
      mode: record.mode,
      transport: record.transport,
      startedAt: String(record.startedAt),
      ...(record.workspace !== undefined && { workspace: record.workspace }),
      ...(record.endedAt !== undefined && { endedAt: String(record.endedAt) }),
    };
    await this.#call((client) =>
      client.multi().del(key).hset(key, fields).pexpire(key, this.#sessionIdleMs).exec(),
    );
  }

  async session(id: string): Promise<SessionRecord | undefined> {
    const key = this.#key(`session:${id}`);
    const answers = await this.#call((client) =>
      client.multi().hgetall(key).pexpire(key, this.#sessionIdleMs).exec(),
    );
    return sessionOf((answers?.[0]?.[1] ?? {}) as Record<string, string>);
  }

  #updateSession(id: string, field: string, value: string): Promise<number> {
    const update = (this.#client as unknown as { toolmeshUpdateSession: UpdateSessionCommand })
      .toolmeshUpdateSession;
    return this.#call((client) =>
      update.call(client, this.#key(`session:${id}`), this.#sessionIdleMs, field, value),
    );
  }

  async setSessionMode(id: string, mode: string): Promise<void> {
    await this.#updateSession(id, 'mode', mode);
  }

  async endSession(id: string, at: number): Promise<void> {
    await this.#updateSession(id, 'endedAt', String(at));
  }

  async readTodos(session: string): Promise<TodoItem[]> {
    const items = await this.#call((client) => client.get(this.#key(`todos:${session}`)));
    return items ? (JSON.parse(items) as TodoItem[]) : [];
  }

  async writeTodos(session: string, todos: TodoItem[]): Promise<void> {
    // One SET replaces the whole list: a reader gets the old value or the new one.
    await this.#call((client) =>
      client.set(this.#key(`todos:${session}`), JSON.stringify(todos), 'PX', this.#sessionIdleMs),
    );
  }

  #approvalTtl(expiresAt: number): number {
    return Math.max(0, expiresAt - this.#now()) + this.#approvalRetentionMs;
  }

  async openApproval(request: NewApproval): Promise<ApprovalRecord> {
    const record: ApprovalRecord = {
      ...request,
      id: randomUUID(),
      status: 'pending',
      createdAt: this.#now(),
    };
    const { status: _pending, ...opened } = record;
    const key = this.#key(`approval:${record.id}`);
    await this.#call((client) =>
      client
        .multi()
        .hset(key, {
          record: JSON.stringify(opened),
          status: 'pending',
          expiresAt: String(record.expiresAt),
        })
        .pexpire(key, this.#approvalTtl(record.expiresAt))
        .zadd(this.#key('approvals:pending'), record.createdAt, record.id)
        .exec(),
    );
    return record;
  }

  async approval(id: string): Promise<ApprovalRecord | undefined> {
    const fields = await this.#call((client) => client.hgetall(this.#key(`approval:${id}`)));
    return approvalOf(fields);
  }

  async pendingApprovals(now: number): Promise<ApprovalRecord[]> {
    const pendingKey = this.#key('approvals:pending');
    const ids = await this.#call((client) => client.zrange(pendingKey, 0, -1));
    if (ids.length === 0) return [];
    const answers = await this.#call((client) => {
      const batch = client.pipeline();
      for (const id of ids) batch.hgetall(this.#key(`approval:${id}`));
      return batch.exec();
    });
    const pending: ApprovalRecord[] = [];
    const gone: string[] = [];
    ids.forEach((id, index) => {
      const record = approvalOf((answers?.[index]?.[1] ?? {}) as Record<string, string>);
      if (!record) gone.push(id);
      else if (record.status === 'pending' && record.expiresAt > now) pending.push(record);
    });
    // Approvals whose keys expired leave their id behind in the set: tidy it on the way.
    if (gone.length > 0) await this.#call((client) => client.zrem(pendingKey, ...gone));
    return pending;
  }

  async decideApproval(
    id: string,
    decision: ApprovalDecision,
    now: number,
  ): Promise<ApprovalRecord | undefined> {
    const decide = (this.#client as unknown as { toolmeshDecide: DecideCommand }).toolmeshDecide;
    const flat = await this.#call((client) =>
      decide.call(
        client,
        this.#key(`approval:${id}`),
        this.#key('approvals:pending'),
        this.#key('decided'),
        String(now),
        decision.status,
        decision.decidedBy,
        NEEDS_UNEXPIRED.has(decision.status) ? '0' : '1',
        id,
        ...(decision.reason !== undefined ? [decision.reason] : []),
      ),
    );
    return flat ? approvalOf(fieldsOf(flat)) : undefined;
  }

  async touchApprover(name: string, now: number): Promise<void> {
    await this.#call((client) => client.zadd(this.#key('approvers'), ...TOUCH_APPROVER_ARGS, now, name));
  }

  async approversSeenSince(since: number): Promise<string[]> {
    return this.#call((client) => client.zrevrangebyscore(this.#key('approvers'), '+inf', since));
  }

  async nextDecision(id: string, withinMs: number, signal: AbortSignal): Promise<void> {
    if (this.#recentlyDecided.has(id) || signal.aborted) return;
    await new Promise<void>((resolve) => {
      const waiters = this.#waiters.get(id) ?? new Set();
      this.#waiters.set(id, waiters);
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        waiters.delete(done);
        if (waiters.size === 0) this.#waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, withinMs);
      signal.addEventListener('abort', done, { once: true });
      waiters.add(done);
    });
  }

  #decided(id: string): void {
    const now = Date.now();
    this.#recentlyDecided.set(id, now);
    for (const [seen, at] of this.#recentlyDecided) {
      if (now - at < RECENT_DECISION_MS) break;
      this.#recentlyDecided.delete(seen);
    }
    for (const wake of [...(this.#waiters.get(id) ?? [])]) wake();
  }

  async health(): Promise<StateHealth> {
    return { redis: await redisHealth(this.#client, this.location) };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const waiters of this.#waiters.values()) for (const wake of [...waiters]) wake();
    await this.#connections.close();
  }
}
