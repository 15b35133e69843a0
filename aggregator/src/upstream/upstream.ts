import { EventEmitter } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  McpError,
  type Prompt,
  PromptListChangedNotificationSchema,
  type Resource,
  ResourceListChangedNotificationSchema,
  type ResourceTemplate,
  type ResourceUpdatedNotification,
  ResourceUpdatedNotificationSchema,
  type ServerCapabilities,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type Logger, packageVersion } from '@toolmesh/core';
import { z } from 'zod';
import { CONNECT_TIMEOUT_MS, type ServerConfig } from '../config/schema.js';
import { backoffDelay } from './backoff.js';
import { type Clock, systemClock } from './clock.js';
import { deliverInOrder } from './ordered-transport.js';
import { StderrTail } from './stderr-tail.js';
import { transportsFor } from './transport.js';

/** `dormant`: not started, its catalogue known from the cache; the first call starts it. */
export type UpstreamState = 'dormant' | 'starting' | 'ready' | 'restarting' | 'stopped';

export interface UpstreamCatalog {
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  capabilities: ServerCapabilities;
  instructions?: string;
}

const EMPTY_CATALOG: UpstreamCatalog = {
  tools: [],
  prompts: [],
  resources: [],
  resourceTemplates: [],
  capabilities: {},
};

/** Requests a downstream server sends to "its client", relayed to a real client session. */
export type RelayedMethod = 'sampling/createMessage' | 'elicitation/create' | 'roots/list';
export type Relay = (
  upstream: string,
  method: RelayedMethod,
  params: Record<string, unknown> | undefined,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

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

/** Follows `nextCursor` until the server has sent every page of a list. */
async function listAll<K extends string, T>(
  key: K,
  fetchPage: (params: { cursor?: string }) => Promise<{ [key in K]: T[] } & { nextCursor?: string }>,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor ? { cursor } : {});
    all.push(...page[key]);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

export type LogMessage = LoggingMessageNotification['params'];
export type ResourceUpdated = (params: ResourceUpdatedNotification['params']) => void;

/** Why a start was abandoned at the server's connect timeout, as `lastError` says it. */
function startTimeoutReason(ms: number): string {
  return `not ready within ${ms} ms (connectTimeoutMs)`;
}

/** Whether a server's `lastError` is that its start ran out of connectTimeoutMs. */
export function startTimedOut(lastError: string | undefined): boolean {
  return lastError?.endsWith('(connectTimeoutMs)') ?? false;
}

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
  private retryAt: number | undefined;
  private readySince: number | undefined;
  /** Set from the start of each attempt to connect, so stop() closes a server still connecting. */
  private client: Client | undefined;
  private attempting: Promise<void> = Promise.resolve();
  /** The first start of a dormant server, which every call that arrives meanwhile waits for. */
  private waking: Promise<void> | undefined;
  private attempt = 0;
  private cancelRestart: () => void = () => undefined;
  private cancelPing: () => void = () => undefined;
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
    const transports = transportsFor(
      this.config,
      (line) => {
        this.log.info(line);
        stderr.add(line);
      },
      (warning) => this.noteSandboxWarning(warning),
    );
    for (const makeTransport of transports) {
      let client: Client;
      try {
        client = await this.connectOver(makeTransport);
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
      this.log.info(`ready: ${this.catalog.tools.length} tools`);
      this.emit('changed');
      return;
    }
    this.lost(errors.join('; then: '));
  }

  /**
   * One try over one transport, from launch to a listed catalogue, within the server's connect
   * timeout. The client is held from the start, so stop() closes a server still connecting.
   */
  private async connectOver(makeTransport: () => Transport): Promise<Client> {
    const client = this.newClient();
    this.client = client;
    const timeoutMs = this.config.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
    let timedOut: Promise<void> | undefined;
    // Real time, not the clock: this guards against a server that hangs, not the restart pacing.
    const timer = setTimeout(() => {
      timedOut = client.close().catch(() => undefined);
    }, timeoutMs);
    try {
      // The SDK's own limit on initialize (60 s) must not decide first: it would cut a longer one short.
      await client.connect(deliverInOrder(makeTransport()), { timeout: 2 * timeoutMs });
      await this.refresh();
      await this.resubscribe(client);
      // resubscribe() logs each failure and goes on, so a timeout during it shows only here.
      if (timedOut) throw new Error('closed on timeout');
      return client;
    } catch (error) {
      // Whether the timeout cut the attempt is settled now: closing may outlast the timeout.
      clearTimeout(timer);
      const cutByTimeout = timedOut !== undefined;
      if (this.client === client) this.client = undefined;
      // A close already under way ends once the process has: the attempt ends no sooner.
      await (timedOut ?? client.close().catch(() => undefined));
      throw cutByTimeout ? new Error(startTimeoutReason(timeoutMs)) : error;
    } finally {
      clearTimeout(timer);
    }
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
    this.client = undefined;
    await client?.close().catch(() => undefined);
    // An attempt still connecting ends once its client is closed: nothing of it outlives stop().
    await this.attempting;
    this.emit('changed');
  }

  private newClient(): Client {
    const client = new Client(
      { name: 'toolmesh', version: packageVersion(import.meta.url) },
      { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } } },
    );
    const relayed =
      (method: RelayedMethod) =>
      (request: { params?: Record<string, unknown> }, extra: { signal: AbortSignal }) =>
        this.options.relay(this.name, method, request.params, extra.signal) as never;
    client.setRequestHandler(CreateMessageRequestSchema, relayed('sampling/createMessage'));
    client.setRequestHandler(ElicitRequestSchema, relayed('elicitation/create'));
    client.setRequestHandler(ListRootsRequestSchema, relayed('roots/list'));
    const refreshAndAnnounce = async () => {
      await this.refresh().catch((error: Error) =>
        this.log.warning(`could not refresh the catalogue: ${error.message}`),
      );
      this.emit('changed');
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, refreshAndAnnounce);
    client.setNotificationHandler(PromptListChangedNotificationSchema, refreshAndAnnounce);
    client.setNotificationHandler(ResourceListChangedNotificationSchema, refreshAndAnnounce);
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      // Nobody is calling this server now, so its message goes to the aggregator's own log.
      if (!this.emit('log', notification.params))
        this.log.debug(`log message (${notification.params.level})`, { data: notification.params.data });
    });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      for (const onUpdated of this.subscribers.get(notification.params.uri) ?? [])
        onUpdated(notification.params);
    });
    return client;
  }

  private async refresh(): Promise<void> {
    const client = this.client;
    if (!client) return;
    const capabilities = client.getServerCapabilities() ?? {};
    const [tools, prompts, resources, resourceTemplates] = await Promise.all([
      capabilities.tools ? listAll<'tools', Tool>('tools', (params) => client.listTools(params)) : [],
      capabilities.prompts
        ? listAll<'prompts', Prompt>('prompts', (params) => client.listPrompts(params))
        : [],
      capabilities.resources
        ? listAll<'resources', Resource>('resources', (params) => client.listResources(params))
        : [],
      // Templates are optional even for servers with resources; some answer "method not found".
      capabilities.resources
        ? listAll<'resourceTemplates', ResourceTemplate>('resourceTemplates', (params) =>
            client.listResourceTemplates(params),
          ).catch(() => [])
        : [],
    ]);
    const disabled = new Set(this.config.disabledTools);
    const instructions = client.getInstructions();
    this.catalog = {
      tools: tools.filter((tool) => !disabled.has(tool.name)),
      prompts,
      resources,
      resourceTemplates,
      capabilities,
      ...(instructions && { instructions }),
    };
  }

  private lost(reason: string): void {
    if (this.state === 'stopped') return;
    this.cancelPing();
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.onclose = undefined;
      void client.close().catch(() => undefined);
    }
    if (this.wasStable()) this.attempt = 0;
    this.readySince = undefined;
    const delay = backoffDelay(this.attempt++, this.options.backoffBaseMs, this.options.backoffMaxMs);
    this.lastError = reason;
    this.state = 'restarting';
    this.retryAt = this.clock.now() + delay;
    this.catalog = { ...this.catalog };
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
      try {
        await client.ping({ timeout: this.options.pingTimeoutMs ?? 10_000 });
        this.schedulePing();
      } catch (error) {
        if (this.client === client) this.lost(`ping failed: ${(error as Error).message}`);
      }
    });
  }

  private connected(): Client {
    if (!this.client || this.state !== 'ready') throw new UpstreamUnavailable(this);
    return this.client;
  }

  /** Forwards a call untouched: no output-schema validation here, the client judges the result. */
  async callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: RequestOptions,
    meta?: Record<string, unknown>,
  ): Promise<CallToolResult> {
    await this.wake();
    const result = await this.connected().request(
      {
        method: 'tools/call',
        params: { name, ...(args && { arguments: args }), ...(meta && { _meta: meta }) },
      },
      CallToolResultSchema,
      options,
    );
    return result as CallToolResult;
  }

  /** Subscribes `onUpdated` to changes of `uri`, asking the server on the first subscriber only. */
  async subscribe(uri: string, onUpdated: ResourceUpdated, options: RequestOptions): Promise<void> {
    const client = this.connected();
    if (!this.catalog.capabilities.resources?.subscribe)
      throw new McpError(ErrorCode.MethodNotFound, `server ${this.name} offers no resource subscriptions`);
    const subscribers = this.subscribers.get(uri) ?? new Set();
    if (subscribers.size === 0) await client.subscribeResource({ uri }, options);
    subscribers.add(onUpdated);
    this.subscribers.set(uri, subscribers);
  }

  /** The last subscriber of `uri` gone, the server is told to stop sending its updates. */
  async unsubscribe(uri: string, onUpdated: ResourceUpdated, options: RequestOptions): Promise<void> {
    const subscribers = this.subscribers.get(uri);
    if (!subscribers?.delete(onUpdated) || subscribers.size > 0) return;
    this.subscribers.delete(uri);
    if (this.state === 'ready') await this.client?.unsubscribeResource({ uri }, options);
  }

  /** A restarted server knows no subscriptions: renew those clients still hold. */
  private async resubscribe(client: Client): Promise<void> {
    for (const uri of this.subscribers.keys()) {
      await client
        .subscribeResource({ uri })
        .catch((error: Error) =>
          this.log.warning(`could not renew the subscription to ${uri}: ${error.message}`),
        );
    }
  }

  /** Tells the server its client's roots changed, so it asks for them again. */
  async rootsChanged(): Promise<void> {
    if (this.state === 'ready') await this.client?.sendRootsListChanged().catch(() => undefined);
  }

  async request<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<T> {
    await this.wake();
    // The SDK wants a result schema; a passthrough one keeps the server's answer as it is.
    return this.connected().request(
      { method, ...(params && { params }) } as never,
      PASSTHROUGH,
      options,
    ) as Promise<T>;
  }
}

const PASSTHROUGH = z.looseObject({});

export class UpstreamUnavailable extends Error {
  constructor(readonly upstream: Upstream) {
    const seconds = upstream.secondsUntilRetry();
    super(
      upstream.state === 'stopped' || upstream.state === 'dormant'
        ? `server ${upstream.name} is ${upstream.state === 'stopped' ? 'stopped' : 'not started'}`
        : `server ${upstream.name} is ${upstream.state === 'starting' ? 'starting' : 'restarting'}, retry in ${seconds} s${
            upstream.lastError ? ` (last error: ${upstream.lastError})` : ''
          }`,
    );
  }
}
