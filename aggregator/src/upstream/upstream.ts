import { EventEmitter } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  type Prompt,
  PromptListChangedNotificationSchema,
  type Resource,
  ResourceListChangedNotificationSchema,
  type ResourceTemplate,
  type ServerCapabilities,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@toolmesh/core';
import { z } from 'zod';
import type { ServerConfig } from '../config/schema.js';
import { backoffDelay } from './backoff.js';
import { transportsFor } from './transport.js';

export type UpstreamState = 'starting' | 'ready' | 'restarting' | 'stopped';

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
}

async function listAll<T>(
  fetchPage: (cursor?: string) => Promise<{ items: T[]; nextCursor?: string }>,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    all.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

/**
 * One downstream MCP server: connects (spawning it for stdio), keeps its catalogue current,
 * pings it, and restarts it with capped exponential backoff when it exits or stops answering.
 * Emits `changed` when its catalogue or state changes.
 */
export class Upstream extends EventEmitter {
  state: UpstreamState = 'starting';
  catalog: UpstreamCatalog = EMPTY_CATALOG;
  lastError: string | undefined;
  /** When the next restart attempt is due (epoch ms), while restarting. */
  retryAt: number | undefined;
  private client: Client | undefined;
  private attempt = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly name: string,
    readonly config: ServerConfig,
    private readonly options: UpstreamOptions,
  ) {
    super();
  }

  get log(): Logger {
    return this.options.log;
  }

  /** Connects; a failure is not thrown but leads to a scheduled restart. */
  async start(): Promise<void> {
    this.state = this.attempt === 0 ? 'starting' : 'restarting';
    const errors: string[] = [];
    for (const makeTransport of transportsFor(this.config, (line) => this.log.info(line))) {
      const client = this.newClient();
      try {
        await client.connect(makeTransport());
        this.client = client;
        await this.refresh();
        this.attempt = 0;
        this.retryAt = undefined;
        this.lastError = undefined;
        this.state = 'ready';
        client.onclose = () => this.lost('the connection closed');
        this.schedulePing();
        this.log.info(`ready: ${this.catalog.tools.length} tools`);
        this.emit('changed');
        return;
      } catch (error) {
        errors.push((error as Error).message);
        await client.close().catch(() => undefined);
      }
    }
    this.lost(errors.join('; then: '));
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    clearTimeout(this.restartTimer);
    clearTimeout(this.pingTimer);
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
    this.emit('changed');
  }

  private newClient(): Client {
    const client = new Client(
      { name: 'toolmesh', version: '0.1.0' },
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
    return client;
  }

  private async refresh(): Promise<void> {
    const client = this.client;
    if (!client) return;
    const capabilities = client.getServerCapabilities() ?? {};
    const [tools, prompts, resources, resourceTemplates] = await Promise.all([
      capabilities.tools
        ? listAll(async (cursor) => {
            const page = await client.listTools(cursor ? { cursor } : {});
            return { items: page.tools, ...(page.nextCursor && { nextCursor: page.nextCursor }) };
          })
        : [],
      capabilities.prompts
        ? listAll(async (cursor) => {
            const page = await client.listPrompts(cursor ? { cursor } : {});
            return { items: page.prompts, ...(page.nextCursor && { nextCursor: page.nextCursor }) };
          })
        : [],
      capabilities.resources
        ? listAll(async (cursor) => {
            const page = await client.listResources(cursor ? { cursor } : {});
            return { items: page.resources, ...(page.nextCursor && { nextCursor: page.nextCursor }) };
          })
        : [],
      capabilities.resources
        ? listAll(async (cursor) => {
            const page = await client.listResourceTemplates(cursor ? { cursor } : {});
            return { items: page.resourceTemplates, ...(page.nextCursor && { nextCursor: page.nextCursor }) };
          }).catch(() => [] as ResourceTemplate[])
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
    clearTimeout(this.pingTimer);
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.onclose = undefined;
      void client.close().catch(() => undefined);
    }
    const delay = backoffDelay(this.attempt++, this.options.backoffBaseMs, this.options.backoffMaxMs);
    this.lastError = reason;
    this.state = 'restarting';
    this.retryAt = Date.now() + delay;
    this.catalog = { ...this.catalog };
    this.log.warning(`unavailable (${reason}); restarting in ${Math.round(delay / 100) / 10} s`);
    this.emit('changed');
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => void this.start(), delay);
    this.restartTimer.unref();
  }

  private schedulePing(): void {
    const interval = this.options.pingIntervalMs ?? 30_000;
    if (interval <= 0) return;
    clearTimeout(this.pingTimer);
    this.pingTimer = setTimeout(async () => {
      const client = this.client;
      if (!client || this.state !== 'ready') return;
      try {
        await client.ping({ timeout: this.options.pingTimeoutMs ?? 10_000 });
        this.schedulePing();
      } catch (error) {
        if (this.client === client) this.lost(`ping failed: ${(error as Error).message}`);
      }
    }, interval);
    this.pingTimer.unref();
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
  ): Promise<CallToolResult> {
    const result = await this.connected().request(
      { method: 'tools/call', params: { name, ...(args && { arguments: args }) } },
      CallToolResultSchema,
      options,
    );
    return result as CallToolResult;
  }

  /** Tells the server its client's roots changed, so it asks for them again. */
  async rootsChanged(): Promise<void> {
    if (this.state === 'ready') await this.client?.sendRootsListChanged().catch(() => undefined);
  }

  request<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<T> {
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
    const seconds = upstream.retryAt ? Math.max(1, Math.ceil((upstream.retryAt - Date.now()) / 1000)) : 1;
    super(
      upstream.state === 'stopped'
        ? `server ${upstream.name} is stopped`
        : `server ${upstream.name} is ${upstream.state === 'starting' ? 'starting' : 'restarting'}, retry in ${seconds} s${
            upstream.lastError ? ` (last error: ${upstream.lastError})` : ''
          }`,
    );
  }
}
