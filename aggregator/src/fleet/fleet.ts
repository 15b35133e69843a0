import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/server';
import type { Logger } from '@toolmesh/core';
import type { HttpFront, ResumedSession, SharedSessions } from '@toolmesh/core/http';
import type { Request, Response } from 'express';
import { Redis } from 'ioredis';
import type { Aggregator } from '../aggregator.js';
import type { ClientSession } from '../session-server/session.js';
import { ShortCache } from '../state/short-cache.js';
import { recordCutOffCalls } from './cut-off-calls.js';
import { type EarlyForwardOptions, earlyForward } from './early-forward.js';
import type { FleetMetrics } from './fleet-metrics.js';
import {
  FLEET_SECRET,
  FORWARDED_BY,
  hopsOf,
  jsonRpcError,
  mayForward,
  movedWhileTravelling,
  sameSecret,
} from './forward-hops.js';
import { type ForwardedBody, type ForwardOutcome, forwardRequest, parsedBody } from './forward-request.js';
import { InFlightMarks } from './in-flight-marks.js';
import { DEFAULT_LEASE_TIMING, type LeaseTiming, type ReplicaBeat, ReplicaLease } from './replica-lease.js';
import { type DirectoryEntry, SessionDirectory, type SessionRecord } from './session-directory.js';
import { StalledOwners } from './stalled-owners.js';

/**
 * How long a replica forwards a session's requests to the owner it read without reading the
 * directory again. A stale owner still answers: it reads the directory afresh and forwards on,
 * or says the session is not found; a refusal or a 5xx from it drops what was read at once.
 */
const OWNER_TTL_MS = 1000;

/** After a drain, how long the requests that arrived meanwhile (all forwarded) may still take. */
const LAST_FORWARDS_MS = 5000;

export interface FleetSettings {
  drainTimeoutMs: number;
  url?: string;
  secret?: string;
}

export interface FleetOptions {
  redisUrl: string;
  /** Before the fleet's keys (`state.redisPrefix`): the fleet's are `<prefix>fleet:…`. */
  keyPrefix: string;
  settings: FleetSettings;
  aggregator: Aggregator;
  metrics: FleetMetrics;
  log: Logger;
  /** How long a session may idle before it is closed; its directory entry lives as long. */
  sessionIdleMs: number;
  timing?: LeaseTiming;
  /** The session server of a session another replica began, in its mode now. */
  rebuild(mode: string, record: SessionRecord): Server;
}

const secretKey = (keyPrefix: string) => `${keyPrefix}fleet:secret`;

/** The fleet's forwarding secret: the first replica makes it, the others read it. */
async function sharedSecret(redis: Redis, key: string): Promise<string> {
  await redis.set(key, randomBytes(32).toString('hex'), 'NX');
  return (await redis.get(key)) as string;
}

/** The replica that holds the call a 2026-07-28 tools/call resumes, by its sealed request state. */
function parkedCallHolder(body: unknown, aggregator: Aggregator): string | undefined {
  const request = body as { method?: unknown; params?: { requestState?: unknown } } | null | undefined;
  const requestState = request?.method === 'tools/call' ? request.params?.requestState : undefined;
  if (requestState === undefined) return undefined;
  const opened = aggregator.requestStateSeal.open(requestState);
  return 'state' in opened && opened.state.kind === 'relay' ? opened.state.replica : undefined;
}

/**
 * One replica of a toolmesh fleet: several `toolmesh serve` processes on one Redis that serve
 * each other's 2025 (legacy) sessions. A request for a session another replica owns is forwarded
 * to it while it lives, and the session is taken over (rebuilt from its directory record) once
 * it is gone; a replica whose heartbeat lapsed serves no session (fencing). 2026-07-28 requests
 * carry everything they need and never come here.
 */
export class Fleet implements SharedSessions<Server> {
  readonly lease: ReplicaLease;
  readonly metrics: FleetMetrics;
  /** The fleet's sessions in Redis (the dashboard lists them). */
  readonly directory: SessionDirectory;
  /** The sessions this replica serves, with what another would need to carry each on. */
  readonly #local = new Map<string, { session: ClientSession; record: SessionRecord }>();
  /** Directory entries of sessions other replicas serve, as last read (see OWNER_TTL_MS). */
  readonly #owners = new ShortCache<DirectoryEntry | undefined>(OWNER_TTL_MS);
  readonly #adopting = new Map<string, Promise<ResumedSession<Server> | undefined>>();
  readonly #inFlight = new Set<Promise<void>>();
  /** Event streams open here (GET): ended when the replica leaves, so their clients reopen them elsewhere. */
  readonly #streams = new Set<ServerResponse>();
  /** The legacy `/sse` sessions open here, whose posts other replicas pass on to this one. */
  readonly #sseSessions = new Set<string>();
  /** Each owner's address, parsed once per heartbeat read (the beats of cached entries serve many forwards). */
  readonly #addresses = new WeakMap<ReplicaBeat, URL>();
  readonly #marks: InFlightMarks;
  readonly #stalledOwners: StalledOwners;
  #front: HttpFront | undefined;
  #draining = false;
  #refresher: NodeJS.Timeout | undefined;
  #sweeper: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;

  private constructor(
    readonly redis: Redis,
    private readonly secret: string,
    private readonly options: FleetOptions,
  ) {
    const prefix = `${options.keyPrefix}fleet:`;
    this.lease = new ReplicaLease(
      redis,
      prefix,
      options.timing ?? DEFAULT_LEASE_TIMING,
      options.log,
      (held) => {
        if (!held) this.#dropSessions();
      },
    );
    this.directory = new SessionDirectory(redis, prefix, options.sessionIdleMs, this.lease.heartbeatPrefix);
    this.#marks = new InFlightMarks(redis, prefix, this.lease, options.log);
    const timing = options.timing ?? DEFAULT_LEASE_TIMING;
    this.#stalledOwners = new StalledOwners(this.lease, timing.ttlMs, timing.renewMs);
    this.metrics = options.metrics;
    this.metrics.replica(this.lease.id);
    // ioredis is ready again after each reconnection: Redis may have restarted with nothing.
    redis.on('ready', () => void this.#restoreInRedis());
    // A call parked here for its client's answer is named by this replica, so a retry finds it.
    options.aggregator.parkedCalls.replica = this.lease.id;
  }

  /** Connects to Redis and settles the shared secret; rejects with what is wrong when Redis does not answer. */
  static async connect(options: FleetOptions): Promise<Fleet> {
    const redis = new Redis(options.redisUrl, {
      lazyConnect: true,
      // Fail at once while disconnected: a queued command would answer after the lease lapsed.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 2500,
      connectTimeout: 2000,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    });
    redis.on('error', (error) => options.log.debug(`fleet Redis: ${error.message}`));
    try {
      await redis.connect();
      const secret = options.settings.secret ?? (await sharedSecret(redis, secretKey(options.keyPrefix)));
      return new Fleet(redis, secret, options);
    } catch (error) {
      redis.disconnect();
      throw new Error(
        `toolmesh cannot reach Redis at ${new URL(options.redisUrl).host} (${(error as Error).message}): start it, or fix state.redis / --redis.`,
      );
    }
  }

  /** Starts heartbeats once the front listens at `url` (or the configured fleet.url). */
  async start(front: HttpFront, listeningUrl: string): Promise<void> {
    this.#front = front;
    await this.lease.start(this.options.settings.url ?? new URL(listeningUrl).origin);
    this.options.aggregator.audit.inFlight = this.#marks;
    const every = Math.min(60_000, Math.max(1000, this.options.sessionIdleMs / 4));
    this.#refresher = setInterval(() => void this.#refresh(), every);
    this.#refresher.unref();
    // A dead replica's heartbeat expires after its TTL; its unfinished calls are recorded soon after.
    const timing = this.options.timing ?? DEFAULT_LEASE_TIMING;
    this.#sweeper = setInterval(() => void this.#sweepDeadReplicas(), timing.renewMs * 2);
    this.#sweeper.unref();
    this.options.log.info(`fleet: replica ${this.lease.id} joined (Redis prefix ${this.options.keyPrefix})`);
  }

  /** The prefix of every key this fleet keeps in Redis. */
  get keyPrefix(): string {
    return this.options.keyPrefix;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Counts a request in flight, so a drain can wait for it; not an event stream (GET), which never ends by itself. */
  countRequest(req: IncomingMessage, res: ServerResponse): void {
    // A leaving replica closes each connection after its answer: the balancer's next request
    // opens a new one, which goes elsewhere once this replica stops listening.
    if (this.#draining) res.setHeader('Connection', 'close');
    if (req.method === 'GET') {
      this.#streams.add(res);
      res.once('close', () => this.#streams.delete(res));
    } else {
      const done = new Promise<void>((resolve) => res.once('close', resolve));
      this.#inFlight.add(done);
      void done.then(() => this.#inFlight.delete(done));
    }
  }

  /**
   * Whether another replica of this fleet passed the request on (its marker, with the fleet's
   * secret): that replica took it from the fleet's rate limit already, so it is not taken again.
   */
  passedOnByReplica(req: Request): boolean {
    const given = req.headers[FLEET_SECRET];
    return (
      req.headers[FORWARDED_BY] !== undefined && typeof given === 'string' && sameSecret(given, this.secret)
    );
  }

  intercept(req: Request, res: Response): boolean {
    if (req.headers[FORWARDED_BY] !== undefined && !this.passedOnByReplica(req)) {
      jsonRpcError(res, 403, `${FORWARDED_BY} is for toolmesh replicas only; send the request without it.`);
      return true;
    }
    if (!this.lease.check()) {
      jsonRpcError(
        res,
        503,
        `This toolmesh replica (${this.lease.id}) cannot renew its heartbeat in Redis, so it serves no session now: retry, and another replica will answer.`,
        { 'Retry-After': '1' },
      );
      return true;
    }
    return false;
  }

  async divert(req: Request, res: Response): Promise<boolean> {
    if (!this.#draining || req.headers[FORWARDED_BY] !== undefined) return false;
    return this.#toAnotherReplica(req, res);
  }

  /**
   * The retry of a 2026-07-28 call parked on another replica for its client's answer goes to
   * that replica while it lives; otherwise it is answered here, which says the call was cut off.
   */
  async routeModern(req: Request, res: Response): Promise<boolean> {
    const holder = parkedCallHolder(req.body, this.options.aggregator);
    if (holder === undefined || holder === this.lease.id || !mayForward(req)) return false;
    const beat = await this.lease.beatOf(holder).catch(() => undefined);
    return beat !== undefined && (await this.#forward(req, res, holder, beat)) === 'answered';
  }

  async opened(
    sessionId: string,
    server: Server,
    caller: string | undefined,
    initialize: InitializeRequest['params'],
  ): Promise<void> {
    const session = this.#sessionOf(server);
    const record: SessionRecord = {
      ...(session.exposure !== 'all' && { exposure: session.exposure }),
      ...(session.workspace !== undefined && { workspace: session.workspace }),
      identity: session.identity,
      ...(session.allowedModes && { allowedModes: session.allowedModes }),
      ...(caller !== undefined && { caller }),
      initialize,
    };
    this.#local.set(sessionId, { session, record });
    await this.directory.add(sessionId, this.lease.id, session.mode, record);
  }

  /** Whether this replica serves the session of that Mcp-Session-Id now. */
  servesHere(sessionId: string): boolean {
    return this.#local.has(sessionId);
  }

  ended(sessionId: string): void {
    this.#local.delete(sessionId);
    // A leaving replica's sessions end here, not for their clients: others carry them on.
    if (this.#draining) return;
    void this.directory.remove(sessionId).catch(() => undefined);
  }

  async streamOpening(sessionId: string): Promise<void> {
    await this.directory.addStream(sessionId, this.lease.id);
    this.#sseSessions.add(sessionId);
  }

  streamClosed(sessionId: string): void {
    this.#sseSessions.delete(sessionId);
    void this.directory.removeStream(sessionId).catch(() => undefined);
  }

  async streamElsewhere(sessionId: string, req: Request, res: Response): Promise<'answered' | undefined> {
    try {
      const found = await this.directory.streamOwner(sessionId);
      const beat = found?.ownerBeat;
      if (!found || !beat || found.owner === this.lease.id || !mayForward(req)) return undefined;
      const { owner } = found;
      const advice = `The toolmesh replica holding this /sse stream (${owner}) stopped before it answered: the call may or may not have run. Open /sse again and retry it.`;
      return (await this.#forward(req, res, owner, beat, advice)) === 'answered' ? 'answered' : undefined;
    } catch (error) {
      if (res.headersSent) return 'answered';
      jsonRpcError(
        res,
        503,
        `toolmesh cannot look /sse session ${sessionId} up in Redis now (${(error as Error).message}): retry shortly.`,
        { 'Retry-After': '1' },
      );
      return 'answered';
    }
  }

  async missing(
    sessionId: string,
    req: Request,
    res: Response,
  ): Promise<'answered' | ResumedSession<Server> | undefined> {
    try {
      return await this.#find(sessionId, req, res);
    } catch (error) {
      return this.#lookupFailed(sessionId, res, error as Error);
    }
  }

  #lookupFailed(sessionId: string, res: ServerResponse, error: Error): 'answered' {
    if (res.headersSent) return 'answered';
    jsonRpcError(
      res,
      503,
      `toolmesh cannot look session ${sessionId} up in Redis now (${error.message}): retry shortly.`,
      { 'Retry-After': '1' },
    );
    return 'answered';
  }

  async #find(
    sessionId: string,
    req: Request,
    res: Response,
  ): Promise<'answered' | ResumedSession<Server> | undefined> {
    // A request another replica passed on was sent by what that one read: here the directory is read
    // afresh, so two replicas that each read the other as owner cannot pass it back and forth.
    const read = () => this.directory.lookup(sessionId);
    let entry = hopsOf(req).length === 0 ? await this.#owners.get(sessionId, read) : await read();
    if (entry && entry.owner !== '' && entry.owner !== this.lease.id && entry.ownerBeat) {
      const beat = entry.ownerBeat;
      if (!mayForward(req)) {
        this.#owners.delete(sessionId);
        return movedWhileTravelling(sessionId, req, res);
      }
      const outcome = await this.#forward(req, res, entry.owner, beat);
      // What was read stays only while the owner serves: a 5xx (fenced, leaving) or a refusal drops it.
      if (outcome === 'answered' && res.statusCode < 500) return 'answered';
      this.#owners.delete(sessionId);
      if (outcome === 'answered') return 'answered';
      await this.lease.declareGone(entry.owner, beat);
      // Nothing listens where the owner was: what happens next goes by the directory as it is now.
      entry = await this.directory.lookup(sessionId);
    } else this.#owners.delete(sessionId);
    if (!entry) return undefined;
    // Nobody serves it, or this leaving replica still owns it unserved: it goes to one that stays.
    if (this.#draining) {
      await this.#toAnotherReplica(req, res, { sessionId, owner: entry.owner });
      return 'answered';
    }
    return this.#adopt(sessionId, req, res, entry);
  }

  async #adopt(
    sessionId: string,
    req: Request,
    res: Response,
    { owner: previous, mode, record }: DirectoryEntry,
  ): Promise<'answered' | ResumedSession<Server> | undefined> {
    let adopting = this.#adopting.get(sessionId);
    if (!adopting) {
      adopting = (async () => {
        const owner = await this.directory.claim(sessionId, this.lease.id, this.lease.heartbeatPrefix);
        if (owner !== this.lease.id) return undefined;
        // What the dead owner left unfinished is on record before the session goes on here.
        if (previous !== '' && previous !== this.lease.id) await this.#recordCutOff(previous);
        const server = this.options.rebuild(mode, record);
        this.#local.set(sessionId, { session: this.#sessionOf(server), record });
        this.metrics.adoptions.inc();
        this.options.log.info(`fleet: took session ${sessionId} over`);
        return { server, owner: record.caller, initialize: record.initialize };
      })().finally(() => this.#adopting.delete(sessionId));
      this.#adopting.set(sessionId, adopting);
    }
    const adopted = await adopting;
    if (adopted) return adopted;
    // Another replica claimed it first: it is that one's now.
    const entry = await this.directory.lookup(sessionId);
    const beat = entry?.ownerBeat;
    if (!entry || !beat) return undefined;
    if (!mayForward(req)) return movedWhileTravelling(sessionId, req, res);
    await this.#forward(req, res, entry.owner, beat);
    return 'answered';
  }

  /** The front's first look at each request: one for a session another replica owns goes there unparsed (early-forward.ts). */
  earlyForward(options: EarlyForwardOptions) {
    return earlyForward(this, options);
  }

  /**
   * The owner to pass a request of `sessionId` on to before the front parses or authenticates it
   * (see early-forward.ts): another live replica, as read within OWNER_TTL_MS, while this one is
   * neither leaving nor fenced. Undefined: the front serves the request as it does any.
   */
  async ownerElsewhere(sessionId: string): Promise<{ owner: string; beat: ReplicaBeat } | undefined> {
    if (this.#draining || this.#local.has(sessionId) || !this.lease.check()) return undefined;
    const entry = await this.#owners.get(sessionId, () => this.directory.lookup(sessionId));
    if (!entry?.ownerBeat || entry.owner === '' || entry.owner === this.lease.id) return undefined;
    return { owner: entry.owner, beat: entry.ownerBeat };
  }

  /**
   * Passes a request on to the owner ownerElsewhere gave, its body as the client sent it.
   * 'refused' when nothing listens there: the front then serves the request as it does any,
   * which finds the owner gone and takes the session over.
   */
  async passOn(
    sessionId: string,
    req: IncomingMessage,
    res: ServerResponse,
    { owner, beat }: { owner: string; beat: ReplicaBeat },
    body: ForwardedBody | undefined,
  ): Promise<ForwardOutcome> {
    const outcome = await this.#forward(req, res, owner, beat, undefined, body).catch((error: Error) =>
      this.#lookupFailed(sessionId, res, error),
    );
    if (outcome === 'refused' || res.statusCode >= 500) this.#owners.delete(sessionId);
    return outcome;
  }

  async #forward(
    req: IncomingMessage,
    res: ServerResponse,
    owner: string,
    beat: ReplicaBeat,
    retryAdvice: string | undefined = undefined,
    body: ForwardedBody | undefined = parsedBody(req),
  ): Promise<ForwardOutcome> {
    // A replica found stalled is not sent more requests to hang on while its heartbeat says so.
    const stalled = this.#stalledOwners.suspects(owner) && (await this.#stalledOwners.stillStalled(owner));
    if (stalled) {
      this.metrics.forwards.inc({ outcome: 'failed' });
      jsonRpcError(res, 503, stalled.message, { 'Retry-After': String(stalled.retryAfterSeconds) });
      return 'answered';
    }
    const outcome = await forwardRequest(
      req,
      res,
      this.#addressOf(beat),
      { [FORWARDED_BY]: [...hopsOf(req), this.lease.id].join(','), [FLEET_SECRET]: this.secret },
      retryAdvice ??
        `The toolmesh replica serving this session (${owner}) stopped before it answered: the call may or may not have run. Retry it; another replica takes the session over.`,
      (giveUp) => this.#stalledOwners.watch(owner, giveUp),
      body,
    );
    this.metrics.forwards.inc({ outcome: outcome === 'answered' && res.statusCode < 500 ? 'ok' : 'failed' });
    return outcome;
  }

  #addressOf(beat: ReplicaBeat): URL {
    let address = this.#addresses.get(beat);
    if (!address) {
      address = new URL(beat.url);
      this.#addresses.set(beat, address);
    }
    return address;
  }

  /** Passes a request to any replica that is not leaving; 503 when there is none. */
  async #toAnotherReplica(
    req: Request,
    res: Response,
    session?: { sessionId: string; owner: string },
  ): Promise<boolean> {
    const others = mayForward(req) ? await this.lease.others().catch(() => []) : [];
    for (const other of others) {
      // The session becomes that replica's before the request reaches it, so nobody else claims it meanwhile.
      if (session) await this.directory.handOver([session.sessionId], session.owner, [other.id]);
      if ((await this.#forward(req, res, other.id, other)) === 'answered') return true;
      if (session) session.owner = other.id;
    }
    jsonRpcError(res, 503, 'This toolmesh replica is shutting down and no other answers: retry shortly.', {
      'Retry-After': '1',
    });
    return true;
  }

  /**
   * Records as cut off the calls left unfinished by replicas without a heartbeat (by `replica`
   * only, when named); whoever comes first does it.
   */
  async #recordCutOff(replica?: string): Promise<void> {
    try {
      const { audit, state } = this.options.aggregator;
      for (const [dead, calls] of await this.#marks.takeFromDead(replica)) {
        if (calls.length === 0) continue;
        this.options.log.warning(
          `fleet: replica ${dead} stopped with ${calls.length} calls unfinished: recording them as cut off`,
        );
        await recordCutOffCalls(dead, calls, audit, state);
      }
    } catch (error) {
      this.options.log.warning(
        `fleet: the calls ${replica ? `replica ${replica}` : 'replicas that stopped'} left unfinished were not all recorded: ${(error as Error).message}`,
      );
    }
  }

  /** Looks for replicas that died with calls marked (nobody took a session of theirs over yet). */
  #sweepDeadReplicas(): Promise<void> {
    this.#sweeping ??= (async () => {
      if (this.lease.valid) await this.#recordCutOff();
    })().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  get #secretKey(): string {
    return secretKey(this.options.keyPrefix);
  }

  #sessionOf(server: Server): ClientSession {
    const session = this.options.aggregator.liveSessions().find((candidate) => candidate.server === server);
    if (!session) throw new Error('the session server of a new session is not attached to the aggregator');
    return session;
  }

  async #refresh(): Promise<void> {
    if (!this.lease.valid) return;
    const sessions = [...this.#local].map(([id, { session }]) => ({ id, mode: session.mode }));
    await Promise.all([
      this.directory.refresh(sessions),
      this.directory.refreshStreams(this.lease.id, this.#sseSessions),
    ]).catch((error: Error) =>
      this.options.log.debug(`fleet: sessions not refreshed in Redis: ${error.message}`),
    );
  }

  /**
   * Puts what this replica knows back into a Redis that lost it (restarted empty): the fleet's
   * secret, so a replica starting now does not make another; its heartbeat, then its `/sse`
   * streams and its sessions, so no other replica takes a session over for want of a heartbeat.
   */
  async #restoreInRedis(): Promise<void> {
    if (!this.#front || this.#draining || !this.lease.valid) return;
    try {
      if (!this.options.settings.secret) await this.redis.set(this.#secretKey, this.secret, 'NX');
      if (this.#local.size === 0 && this.#sseSessions.size === 0) return;
      await this.lease.renewNow();
      await this.directory.refreshStreams(this.lease.id, this.#sseSessions);
      const sessions = [...this.#local].map(([id, { session, record }]) => ({
        id,
        mode: session.mode,
        record,
      }));
      const restored = await this.directory.restore(this.lease.id, sessions);
      if (restored > 0)
        this.options.log.warning(
          `fleet: Redis had lost ${restored} sessions of this replica: recorded them again`,
        );
    } catch (error) {
      this.options.log.debug(`fleet: sessions not restored in Redis: ${(error as Error).message}`);
    }
  }

  /** The lease lapsed: another replica may take these sessions over any moment, so they end here. */
  #dropSessions(): void {
    const released = this.#front?.releaseSessions();
    this.#local.clear();
    void released?.end();
  }

  /**
   * Leaves the fleet gracefully (SIGTERM): takes no new session, gives the sessions it has to the
   * replicas that stay (each carries its share on at its next request), lets requests in flight
   * finish for up to `timeoutMs`, then stops listening and waits for the last forwards.
   */
  async drain(timeoutMs = this.options.settings.drainTimeoutMs): Promise<void> {
    this.#draining = true;
    this.lease.draining = true;
    const released = this.#front?.releaseSessions();
    const handedOver = released?.ids ?? [];
    this.#local.clear();
    const heirs = (await this.lease.others().catch(() => [])).map((other) => other.id);
    await this.directory
      .handOver(handedOver, this.lease.id, heirs)
      .catch((error: Error) =>
        this.options.log.warning(
          `fleet: sessions not handed over (${error.message}); others take them when the heartbeat expires`,
        ),
      );
    const deadline = new Promise<'timeout'>((resolve) =>
      setTimeout(() => resolve('timeout'), timeoutMs).unref(),
    );
    const inFlight = this.#inFlight.size;
    if ((await Promise.race([Promise.all([...this.#inFlight]), deadline])) === 'timeout')
      this.options.log.warning(
        `fleet: drain timeout (${timeoutMs} ms) reached with requests still in flight; they are cut off`,
      );
    await released?.end();
    for (const stream of this.#streams) stream.end();
    // What arrived meanwhile was forwarded, each on a connection closed after its answer: once
    // nothing new can connect, the last of them end soon.
    const lastForwards = new Promise((resolve) => setTimeout(resolve, LAST_FORWARDS_MS).unref());
    await Promise.race([this.#front?.stopAccepting(), lastForwards]);
    this.options.log.info(
      `fleet: replica ${this.lease.id} drained: ${handedOver.length} sessions handed over, ${inFlight} requests in flight let finish`,
    );
  }

  /** How this replica sees the fleet, for /health. */
  async health(): Promise<{ replica: string; draining: boolean; lease: 'held' | 'lapsed'; redis: string }> {
    const started = performance.now();
    const redis = await this.redis
      .ping()
      .then(() => `ok (${Math.round((performance.now() - started) * 10) / 10} ms)`)
      .catch((error: Error) => `unreachable: ${error.message}`);
    return {
      replica: this.lease.id,
      draining: this.#draining,
      // The check every session request makes (intercept), so /health says what requests meet.
      lease: this.lease.check() ? 'held' : 'lapsed',
      redis,
    };
  }

  async close(): Promise<void> {
    clearInterval(this.#refresher);
    clearInterval(this.#sweeper);
    this.#stalledOwners.close();
    // The last calls' marks cleared before the heartbeat goes, or others would record them as cut off.
    await this.#marks.flush();
    await this.lease.stop();
    this.redis.disconnect();
  }
}
