import { EventEmitter } from 'node:events';
import type {
  Client,
  McpSubscription,
  RequestOptions,
  SubscriptionFilter,
  Transport,
} from '@modelcontextprotocol/client';
import type { CallToolResult, ResourceUpdatedNotification } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@toolmesh/core';
import { CONNECT_TIMEOUT_MS, isStdioServer, type ServerConfig } from '../config/schema.js';
import { backoffDelay } from './backoff.js';
import { CALL_TAG_HEADER, newCallTag } from './call-tag.js';
import { type Clock, systemClock } from './clock.js';
import { type ConnectionKit, connectionKit } from './connection-kit-loader.js';
import { DirectCalls } from './direct-calls.js';
import { ErrorCode, inLegacyTerms, McpError } from './legacy-error.js';
import { deliverInOrder } from './ordered-transport.js';
import { startTimeoutReason } from './start-timeout.js';
import { StderrTail } from './stderr-tail.js';
import type { Dial } from './transport.js';
import { EMPTY_CATALOG, fetchCatalog, type UpstreamCatalog } from './upstream-catalog.js';
import type { Relay, UpstreamClient } from './upstream-client.js';
import { UpstreamUnavailable } from './upstream-unavailable.js';
import { withoutServerInfo } from './without-server-info.js';

/** `dormant`: not started, its catalogue known from the cache; the first call starts it. */
export type UpstreamState = 'dormant' | 'starting' | 'ready' | 'restarting' | 'stopped';

export interface UpstreamOptions {
  log: Logger;
  relay: Relay;
  /** How often a ready server is pinged; 0 turns health checks off. */
  pingIntervalMs?: number;
  pingTimeoutMs?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /**
   * How long a server must stay ready before its backoff starts again from the base delay
   * (default 60 s): one that crashes soon after each start is restarted ever more slowly.
   */
  stableAfterMs?: number;
  clock?: Clock;
}

/** The revision a server speaks from: 2026-07-28, stateless; or one of 2025, with `initialize` and a session. */
export type ProtocolEra = 'modern' | 'legacy';
export type ResourceUpdated = (params: ResourceUpdatedNotification['params']) => void;

/**
 * How long a stdio server may stay silent at its `server/discover` probe before it is taken for a
 * 2025 server that ignores requests before `initialize`, and initialized on the same process.
 */
const STDIO_PROBE_SILENCE_MS = 10_000;

/**
 * One downstream MCP server: connects (spawning it for stdio), keeps its catalogue current,
 * pings it, and restarts it with capped exponential backoff when it exits or stops answering.
 * The backoff starts over only after the server has stayed ready for `stableAfterMs`, so one that
 * crashes soon after every start is not restarted at the base rate forever.
 * Emits `changed` when its catalogue or state changes, and `log` with each log message it sends.
 */
export class Upstream extends EventEmitter {
  state: UpstreamState = 'starting';
  catalog: UpstreamCatalog = EMPTY_CATALOG;
  lastError: string | undefined;
  /** Why it runs without the sandbox its config prefers, when it does (`toolmesh doctor` shows it). */
  sandboxWarning: string | undefined;
  /**
   * The protocol revision its last connection speaks (`2026-07-28`, or a 2025 one), kept while
   * it restarts; undefined until it first connected.
   */
  protocolVersion: string | undefined;
  /** The era of `protocolVersion`. */
  era: ProtocolEra | undefined;
  private retryAt: number | undefined;
  private readySince: number | undefined;
  /** Set from the start of each attempt to connect, so stop() closes a server still connecting. */
  private client: UpstreamClient | undefined;
  /**
   * The transport of that attempt: while the client probes the era it holds the transport but
   * has not attached it, so closing the client alone would not end a server that hangs there.
   */
  private transport: Transport | undefined;
  /**
   * The connection's calls sent past the SDK's client, when it is to a server over stdio: there
   * the SDK's client does nothing for a call that a proxy needs, but for a 2026-07-28 server's
   * rounds of questions, which it is handed.
   */
  private direct: DirectCalls | undefined;
  /** Set once the server ended at its `server/discover` probe: it is started for the 2025 handshake only. */
  private endsAtProbe = false;
  /** A 2026-07-28 server's channel for list changes and resource updates. */
  private listening: McpSubscription | undefined;
  private attempting: Promise<void> = Promise.resolve();
  /** Whether `catalog` is the cached one given by listFromCache, not yet replaced by its own. */
  private listedFromCache = false;
  /** The first start of a dormant server, which every call that arrives meanwhile waits for. */
  private waking: Promise<void> | undefined;
  private attempt = 0;
  private cancelRestart: () => void = () => undefined;
  private cancelPing: () => void = () => undefined;
  /** Who made each call in flight, by its call tag (see call-tag.ts). */
  private readonly callers = new Map<string, unknown>();
  /** Who is told when a resource changes, by URI; the server is subscribed once per URI. */
  private readonly subscribers = new Map<string, Set<ResourceUpdated>>();

  constructor(
    readonly name: string,
    readonly config: ServerConfig,
    private readonly options: UpstreamOptions,
  ) {
    super();
    // Every call in flight listens for `log`, and there is no sensible cap on calls.
    this.setMaxListeners(0);
  }

  get log(): Logger {
    return this.options.log;
  }

  private get clock(): Clock {
    return this.options.clock ?? systemClock;
  }

  /** Whole seconds until the next restart attempt, at least 1. */
  secondsUntilRetry(): number {
    return this.retryAt ? Math.max(1, Math.ceil((this.retryAt - this.clock.now()) / 1000)) : 1;
  }

  /**
   * Connects; a failure is not thrown but leads to a scheduled restart. Resolves when this
   * attempt ends: ready, failed, or abandoned by stop().
   */
  start(): Promise<void> {
    this.attempting = this.connect();
    return this.attempting;
  }

  /** Lists the catalogue it had when it was cached, and starts on its first call or request. */
  rest(catalog: UpstreamCatalog): void {
    this.state = 'dormant';
    this.catalog = catalog;
  }

  /**
   * Lists the catalogue it had when it was cached until it lists its own, once started; a first
   * start that fails lists nothing, as a server never seen.
   */
  listFromCache(catalog: UpstreamCatalog): void {
    this.catalog = catalog;
    this.listedFromCache = true;
  }

  /** A dormant server is started, and waited for (by every caller that woke it); any other is left as it is. */
  async wake(): Promise<void> {
    if (this.state === 'dormant') this.waking = this.start();
    await this.waking;
  }

  /** Settles when the attempt to connect under way (or the last one) has ended. */
  attemptEnded(): Promise<void> {
    return this.attempting;
  }

  private async connect(): Promise<void> {
    this.state = this.attempt === 0 ? 'starting' : 'restarting';
    const errors: string[] = [];
    const stderr = new StderrTail();
    const kit = await connectionKit();
    // stop() ran while the kit loaded: nothing was started.
    if (this.stopped()) return;
    const transports = kit.transportsFor(
      this.config,
      (line) => {
        this.log.info(line);
        stderr.add(line);
      },
      (warning) => this.noteSandboxWarning(warning),
    );
    for (const dial of transports) {
      let client: Client;
      try {
        client = await this.connectInNewestEra(kit, dial);
      } catch (error) {
        if (this.stopped()) return;
        // What the server wrote as it died is still on its way through the stderr pipe.
        await new Promise((resolve) => setImmediate(resolve));
        errors.push(stderr.explain((error as Error).message));
        continue;
      }
      // stop() ran as it connected (toolmesh is ending, a reload removed the server): it closed the client.
      if (this.stopped()) return;
      this.readySince = this.clock.now();
      this.retryAt = undefined;
      this.lastError = undefined;
      this.state = 'ready';
      client.onclose = () => this.lost(stderr.explain('the connection closed'));
      this.schedulePing();
      this.log.info(`ready: ${this.catalog.tools.length} tools, MCP ${this.protocolVersion}`);
      this.emit('changed');
      return;
    }
    this.lost(errors.join('; then: '));
  }

  /**
   * Connects in the newest revision the server answers, unless its config asks for 2025: a
   * transport that carries both eras asks `server/discover` first and falls back to the 2025 handshake. A server that ends at the probe
   * (some SDKs end a session at any request before `initialize`) is started again for the 2025
   * handshake, and from then on started for it alone.
   */
  private async connectInNewestEra(kit: ConnectionKit, dial: Dial): Promise<Client> {
    if (!dial.probe || this.endsAtProbe || this.config.protocol === '2025')
      return this.connectOver(kit, dial, 'legacy');
    try {
      return await this.connectOver(kit, dial, 'auto');
    } catch (error) {
      if (
        !(error instanceof kit.SdkError && error.code === kit.SdkErrorCode.EraNegotiationFailed) ||
        this.stopped()
      )
        throw error;
      this.log.info(
        `ended at its server/discover probe (${error.message}); starting it for the 2025 handshake`,
      );
      this.endsAtProbe = true;
      return this.connectOver(kit, dial, 'legacy');
    }
  }

  /**
   * One try over one transport, from launch to a listed catalogue, within the server's connect
   * timeout. The client is held from the start, so stop() closes a server still connecting.
   */
  private async connectOver(
    kit: ConnectionKit,
    dial: Dial,
    negotiation: 'auto' | 'legacy',
  ): Promise<UpstreamClient> {
    const timeoutMs = this.config.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
    const client = this.newClient(kit, negotiation, timeoutMs);
    this.client = client;
    this.transport = undefined;
    this.direct = undefined;
    let timedOut: Promise<void> | undefined;
    // Real time, not the clock: this guards against a server that hangs, not the restart pacing.
    const timer = setTimeout(() => {
      timedOut = this.closeAttempt(client);
    }, timeoutMs);
    try {
      const opened = dial.open();
      const direct = new DirectCalls(opened);
      const transport = deliverInOrder(opened, direct);
      this.transport = transport;
      // The SDK's own limit on initialize (60 s) must not decide first: it would cut a longer one short.
      await client.connect(transport, { timeout: 2 * timeoutMs });
      this.protocolVersion = client.getNegotiatedProtocolVersion();
      this.era = client.getProtocolEra();
      if (isStdioServer(this.config)) {
        const envelope = client.outboundEnvelope();
        if (envelope) direct.speakModern(envelope);
        this.direct = direct;
      }
      await this.refresh();
      await this.resubscribe(client);
      // resubscribe() logs each failure and goes on, so a timeout during it shows only here.
      if (timedOut) throw new Error('closed on timeout');
      return client;
    } catch (error) {
      // Whether the timeout cut the attempt is settled now: closing may outlast the timeout.
      clearTimeout(timer);
      const cutByTimeout = timedOut !== undefined;
      // A close already under way ends once the process has: the attempt ends no sooner.
      await (timedOut ?? this.closeAttempt(client));
      throw cutByTimeout ? new Error(startTimeoutReason(timeoutMs)) : error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends an attempt to connect: its client, and its transport, which a probing client does not hold yet. */
  private async closeAttempt(client: Client): Promise<void> {
    if (this.client !== client) return client.close().catch(() => undefined);
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    this.direct = undefined;
    this.listening = undefined;
    await client.close().catch(() => undefined);
    await transport?.close().catch(() => undefined);
  }

  /** Logged when it first appears or changes, not at every restart. */
  private noteSandboxWarning(warning: string | undefined): void {
    if (warning && warning !== this.sandboxWarning) this.log.warning(warning);
    this.sandboxWarning = warning;
  }

  /** Read through a method: TypeScript would otherwise narrow `state` across the awaits in connect(). */
  private stopped(): boolean {
    return this.state === 'stopped';
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    this.cancelRestart();
    this.cancelPing();
    const client = this.client;
    if (client) await this.closeAttempt(client);
    // An attempt still connecting ends once its client is closed: nothing of it outlives stop().
    await this.attempting;
    this.emit('changed');
  }

  /** A client of either era for this server, whose requests and notifications come back here. */
  private newClient(
    kit: ConnectionKit,
    negotiation: 'auto' | 'legacy',
    connectTimeoutMs: number,
  ): UpstreamClient {
    // On HTTP a silent probe is an outage, left to the connect timeout; on stdio it is a 2025 server.
    const probeTimeoutMs = isStdioServer(this.config)
      ? Math.min(STDIO_PROBE_SILENCE_MS, connectTimeoutMs / 2)
      : undefined;
    return kit.newUpstreamClient(negotiation, probeTimeoutMs, {
      relay: (method, params, signal, callTag) =>
        this.options.relay(
          this.name,
          method,
          params,
          signal,
          callTag === undefined ? undefined : this.callers.get(callTag),
        ),
      listChanged: async () => {
        await this.refresh().catch((error: Error) =>
          this.log.warning(`could not refresh the catalogue: ${error.message}`),
        );
        this.emit('changed');
      },
      log: (params, callTag) => {
        const caller = callTag === undefined ? undefined : this.callers.get(callTag);
        // Nobody is calling this server now, so its message goes to the aggregator's own log.
        if (!this.emit('log', params, caller))
          this.log.debug(`log message (${params.level})`, { data: params.data });
      },
      resourceUpdated: (params) => {
        for (const onUpdated of this.subscribers.get(params.uri) ?? []) onUpdated(params);
      },
    });
  }

  private async refresh(): Promise<void> {
    const client = this.client;
    if (!client) return;
    const catalog = await fetchCatalog(client, this.config.disabledTools);
    this.listedFromCache = false;
    this.catalog = catalog;
  }

  private lost(reason: string): void {
    if (this.state === 'stopped') return;
    this.cancelPing();
    const client = this.client;
    if (client) {
      client.onclose = undefined;
      void this.closeAttempt(client);
    }
    if (this.wasStable()) this.attempt = 0;
    this.readySince = undefined;
    const delay = backoffDelay(this.attempt++, this.options.backoffBaseMs, this.options.backoffMaxMs);
    this.lastError = reason;
    this.state = 'restarting';
    this.retryAt = this.clock.now() + delay;
    this.catalog = this.listedFromCache ? EMPTY_CATALOG : { ...this.catalog };
    this.listedFromCache = false;
    this.log.warning(`unavailable (${reason}); restarting in ${Math.round(delay / 100) / 10} s`);
    this.emit('changed');
    this.cancelRestart();
    this.cancelRestart = this.clock.after(delay, () => void this.start());
  }

  private wasStable(): boolean {
    return (
      this.readySince !== undefined &&
      this.clock.now() - this.readySince >= (this.options.stableAfterMs ?? 60_000)
    );
  }

  private schedulePing(): void {
    const interval = this.options.pingIntervalMs ?? 30_000;
    if (interval <= 0) return;
    this.cancelPing();
    this.cancelPing = this.clock.after(interval, async () => {
      const client = this.client;
      if (!client || this.state !== 'ready') return;
      const timeout = this.options.pingTimeoutMs ?? 10_000;
      try {
        // 2026-07-28 has no ping: asking a server what it offers shows as well that it answers.
        if (client.getProtocolEra() === 'modern') await client.discover({ timeout });
        else await client.ping({ timeout });
        this.schedulePing();
      } catch (error) {
        if (this.client === client) this.lost(`ping failed: ${(error as Error).message}`);
      }
    });
  }

  private connected(): UpstreamClient {
    if (!this.client || this.state !== 'ready') throw new UpstreamUnavailable(this);
    return this.client;
  }

  /**
   * Forwards a call untouched: no output-schema validation here, the client judges the result.
   * What the server asks as part of it, where the wire says so, is relayed with `caller`. A call
   * to a server over stdio goes past the SDK's client, which takes over only when the server asks
   * for input in 2026-07-28 (where the wire does say which call asks).
   */
  async callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: RequestOptions,
    meta?: Record<string, unknown>,
    caller?: unknown,
  ): Promise<CallToolResult> {
    await this.wake();
    const client = this.connected();
    const params = { name, ...(args && { arguments: args }), ...(meta && { _meta: meta }) };
    const result = this.direct
      ? await this.direct.call(name, args, meta, options, (answer, startedAt) =>
          this.asCaller(caller, options, (tagged) => client.continueCall(params, answer, tagged, startedAt)),
        )
      : await this.asCaller(caller, options, (tagged) =>
          client.passOn({ method: 'tools/call', params }, tagged),
        );
    return withoutServerInfo(result as CallToolResult);
  }

  /**
   * Runs `ask` with options that tag its call, so that what the server asks as part of it is
   * relayed with `caller`; its failure said as the 2025 SDK says it.
   */
  private async asCaller(
    caller: unknown,
    options: RequestOptions,
    ask: (tagged: RequestOptions) => Promise<unknown>,
  ): Promise<unknown> {
    const tag = newCallTag();
    this.callers.set(tag, caller);
    try {
      return await inLegacyTerms(
        ask({ ...options, headers: { ...options.headers, [CALL_TAG_HEADER]: tag } }),
      );
    } finally {
      this.callers.delete(tag);
    }
  }

  /** Subscribes `onUpdated` to changes of `uri`, asking the server on the first subscriber only. */
  async subscribe(uri: string, onUpdated: ResourceUpdated, options: RequestOptions): Promise<void> {
    const client = this.connected();
    if (!this.catalog.capabilities.resources?.subscribe)
      throw new McpError(ErrorCode.MethodNotFound, `server ${this.name} offers no resource subscriptions`);
    const subscribers = this.subscribers.get(uri) ?? new Set();
    if (subscribers.size === 0) {
      if (client.getProtocolEra() === 'modern') await this.listen(client, [...this.subscribers.keys(), uri]);
      else await inLegacyTerms(client.subscribeResource({ uri }, options));
    }
    subscribers.add(onUpdated);
    this.subscribers.set(uri, subscribers);
  }

  /** The last subscriber of `uri` gone, the server is told to stop sending its updates. */
  async unsubscribe(uri: string, onUpdated: ResourceUpdated, options: RequestOptions): Promise<void> {
    const subscribers = this.subscribers.get(uri);
    if (!subscribers?.delete(onUpdated) || subscribers.size > 0) return;
    this.subscribers.delete(uri);
    const client = this.client;
    if (this.state !== 'ready' || !client) return;
    if (client.getProtocolEra() === 'modern') await this.listen(client, [...this.subscribers.keys()]);
    else await inLegacyTerms(client.unsubscribeResource({ uri }, options));
  }

  /**
   * A restarted server knows no subscriptions: renew those clients still hold. A 2026-07-28
   * server sends list changes and resource updates only on a `subscriptions/listen` stream, so
   * one is opened for what it offers.
   */
  private async resubscribe(client: Client): Promise<void> {
    if (client.getProtocolEra() === 'modern') {
      await this.listen(client, [...this.subscribers.keys()]).catch((error: Error) =>
        this.log.warning(`could not listen for its changes: ${error.message}`),
      );
      return;
    }
    for (const uri of this.subscribers.keys()) {
      await client
        .subscribeResource({ uri })
        .catch((error: Error) =>
          this.log.warning(`could not renew the subscription to ${uri}: ${error.message}`),
        );
    }
  }

  /**
   * Replaces the `subscriptions/listen` stream of a 2026-07-28 server with one for `uris` and the
   * list changes the server offers; the old one is closed once the new one is acknowledged, so
   * no update falls between them. A stream the server ends is a lost connection: the catalogue
   * would go stale unseen.
   */
  private async listen(client: Client, uris: string[]): Promise<void> {
    const { capabilities } = this.catalog;
    const filter: SubscriptionFilter = {
      ...(capabilities.tools?.listChanged && { toolsListChanged: true }),
      ...(capabilities.prompts?.listChanged && { promptsListChanged: true }),
      ...(capabilities.resources?.listChanged && { resourcesListChanged: true }),
      ...(uris.length > 0 && { resourceSubscriptions: uris }),
    };
    const previous = this.listening;
    const subscription =
      Object.keys(filter).length > 0 ? await inLegacyTerms(client.listen(filter)) : undefined;
    this.listening = subscription;
    void subscription?.closed.then((how) => {
      if (how !== 'local' && this.listening === subscription && this.client === client)
        this.lost(`its subscriptions/listen stream ended (${how})`);
    });
    await previous?.close().catch(() => undefined);
  }

  /**
   * Tells the server its client's roots changed, so it asks for them again. A 2026-07-28 server
   * asks for roots within each call that needs them, so it has nothing to be told.
   */
  async rootsChanged(): Promise<void> {
    if (this.state === 'ready' && this.client?.getProtocolEra() === 'legacy')
      await this.client.sendRootsListChanged().catch(() => undefined);
  }

  async request<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<T> {
    await this.wake();
    const answer = await inLegacyTerms(
      this.connected().passOn({ method, ...(params && { params }) }, options),
    );
    return withoutServerInfo(answer as Record<string, unknown>) as T;
  }
}
