import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Server } from '@modelcontextprotocol/server';
import { createLogger, type Logger } from '@toolmesh/core';
import { z } from 'zod';
import { ApprovalPort } from './approvals/approval-port.js';
import { configuredRequestStateKey, RequestStateSeal } from './approvals/request-state.js';
import { AuditLog } from './audit/audit-log.js';
import type { AuditRecord } from './audit/audit-record.js';
import { AuditRetention } from './audit/audit-retention.js';
import { localIdentity } from './auth/local-identity.js';
import type { AggregatorConfig, ServerConfig } from './config/schema.js';
import { ConfiguredEmbeddings } from './discovery/configured-embeddings.js';
import { indexedTool } from './discovery/indexed-tool.js';
import { DiscoveryLearning } from './discovery/learning.js';
import { ToolIndex } from './discovery/tool-index.js';
import { Policy } from './policy/policy.js';
import { Registry, type RegistryChange, type ToolEntry } from './registry/registry.js';
import { type ModernRequestFacts, RecentModernClients } from './session-server/modern-clients.js';
import { abandon } from './session-server/parkable-call.js';
import { ParkedCalls } from './session-server/parked-calls.js';
import { type CallerOfCall, relayTarget } from './session-server/relay-target.js';
import type { ClientSession, Exposure } from './session-server/session.js';
import type { SessionBackend } from './session-server/session-backend.js';
import { type SessionEra, sessionServerFor } from './session-server/session-server.js';
import { type AssociationStore, associationStoreFor } from './state/association-store.js';
import { ShortCache } from './state/short-cache.js';
import type { AggregatorState } from './state/state.js';
import type { CachedCatalogue, CatalogueCache } from './upstream/catalogue-cache.js';
import type { UpstreamOptions } from './upstream/upstream.js';
import type { RelayedMethod } from './upstream/upstream-client.js';
import { UpstreamSet } from './upstream/upstream-set.js';
import { UpstreamUnavailable } from './upstream/upstream-unavailable.js';
import { instanceOf } from './workspaces/instances.js';
import { defaultWorkspace, type Workspace } from './workspaces/workspace.js';
import { WorkspaceScope } from './workspaces/workspace-scope.js';

export interface AggregatorOptions {
  config: AggregatorConfig;
  servers: ReadonlyMap<string, ServerConfig>;
  /** Default: one workspace, the current folder. */
  workspaces?: readonly Workspace[];
  /** Sessions, modes, todo lists and approvals; the caller owns it and closes it. */
  state: AggregatorState;
  /** Where discovery keeps what it learns from use; default: beside a SQLite state's file. */
  associations?: AssociationStore;
  log?: Logger;
  /** Health-check and restart timing, mostly for tests. */
  upstream?: Omit<UpstreamOptions, 'log' | 'relay'>;
  /**
   * How long the start-up wait lasts for servers' first attempts (default: the config's
   * startupWaitMs); Infinity waits for every one, each bounded by its connect timeout.
   */
  startupWaitMs?: number;
  /**
   * Where each registry's catalogues are kept when it is built; with `fromCache`, servers found
   * there under an unchanged config are not started but listed from it, each started by its
   * first call (one-shot commands).
   */
  catalogueCache?: CatalogueCache;
  fromCache?: boolean;
  /**
   * With `catalogueCache`: servers found there under an unchanged config start at once, as
   * always, but are listed from it until they list their own; when every server is found there,
   * lists are answered at once instead of after the start-up wait (`toolmesh serve`).
   */
  listFromCache?: boolean;
  /**
   * With `listFromCache` and every server's catalogue cached: the servers are spawned once a
   * session's first tools/list is answered and the answer has left the process (or `holdMs`, by
   * default FIRST_LIST_HOLD_MS, have passed), so that answer does not compete with seven starting
   * processes for the CPU (`toolmesh serve` over stdio).
   */
  startServersAfterFirstList?: ServerHold;
  /**
   * The key that seals approval round trips with 2026-07-28 clients, read when first needed;
   * default: TOOLMESH_REQUEST_STATE_KEY (hex), else a key kept in the data directory (0600).
   */
  requestStateKey?: () => Buffer;
}

const PASSTHROUGH = z.looseObject({});

/**
 * How long a 2026-07-28 principal's bound mode, once read, is used without reading it again: a
 * mode switch made through another process reaches this one within it (docs/protocol.md).
 */
const BOUND_MODE_TTL_MS = 500;

/** How long the servers wait for a session's first tools/list, at most (startServersAfterFirstList). */
const FIRST_LIST_HOLD_MS = 1000;

export interface ServerHold {
  /**
   * Resolves once what the process has written so far has left it. Launching servers holds the
   * event loop, and the part of an answer that did not fit in the pipe (83 tools are about 230 KB,
   * a pipe holds 64) would wait behind it.
   */
  outputDrained: () => Promise<void>;
  holdMs?: number;
}

/** Resolves after the event loop has polled for I/O at least once from now. */
function afterOnePoll(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/**
 * The registry over every downstream server, and the sessions of the clients that use it. Each
 * client session gets its own session server; upstream connections are shared by all of them.
 */
export class Aggregator implements SessionBackend {
  readonly log: Logger;
  config: AggregatorConfig;
  readonly registry: Registry;
  readonly index: ToolIndex;
  /** What discovery learns from the tools sessions call after searching. */
  readonly learning: DiscoveryLearning;
  /** Tool search's optional embeddings stage (`discovery.embeddings`). */
  readonly embeddings: ConfiguredEmbeddings;
  readonly upstreams: UpstreamSet;
  readonly state: AggregatorState;
  /** Every tools/call that reached policy; it fails closed when it cannot be written. */
  readonly audit: AuditLog;
  /** Told of each audited call as it ends (the fleet's metrics). */
  readonly callObservers = new Set<(record: AuditRecord) => void>();
  readonly #auditRetention: AuditRetention;
  #startupWaitOver = false;
  /**
   * Settles when the start-up wait is over and the first registry is built: requests that read
   * the registry wait for it, so names that collide are given by the documented rule.
   */
  readonly started: Promise<void>;
  readonly listed: Promise<void>;
  /** When the oldest catalogue listed from the cache was saved; undefined when none was. */
  readonly cachedSince: number | undefined;
  readonly #catalogueCache: CatalogueCache | undefined;
  policy: Policy;
  approvals: ApprovalPort;
  readonly requestStateSeal: RequestStateSeal;
  readonly parkedCalls: ParkedCalls;
  workspaces: WorkspaceScope;
  private readonly sessions = new Set<ClientSession>();
  /** The sessions of 2026-07-28 requests whose calls run now. */
  readonly #modernCalls = new Set<ClientSession>();
  /** The 2026-07-28 clients served lately, for the dashboard: they have no session to list. */
  readonly modernClients = new RecentModernClients();
  /** 2026-07-28 principals' bound modes, as read from the state (see BOUND_MODE_TTL_MS). */
  readonly #boundModes = new ShortCache<string | undefined>(BOUND_MODE_TTL_MS);
  private lastReady = '';
  /** Lets held servers start: set while they wait for the first tools/list. */
  #releaseServers: (() => void) | undefined;
  private reloading: Promise<unknown> = Promise.resolve();

  private constructor(options: AggregatorOptions) {
    this.log = options.log ?? createLogger({ scope: 'toolmesh' });
    this.#catalogueCache = options.catalogueCache;
    this.config = options.config;
    this.registry = new Registry(options.config.toolNameMaxLength);
    this.state = options.state;
    const store = options.associations ?? associationStoreFor(options.state, this.log);
    this.learning = new DiscoveryLearning({
      settings: () => this.config.discovery,
      log: this.log,
      ...(store && { store }),
    });
    this.index = new ToolIndex({ learned: () => this.learning.associations });
    this.embeddings = new ConfiguredEmbeddings(() => this.config.discovery.embeddings, this.log);
    this.audit = new AuditLog({ state: this.state, log: this.log, settings: () => this.config.audit });
    this.#auditRetention = new AuditRetention({
      state: this.state,
      log: this.log,
      retentionDays: () => this.config.audit.retentionDays,
    });
    this.policy = new Policy(options.config);
    this.approvals = this.#approvalPort(options.config);
    this.requestStateSeal = new RequestStateSeal(options.requestStateKey ?? configuredRequestStateKey);
    // A client answering its server's question is a person answering, given as long as an approval.
    this.parkedCalls = new ParkedCalls({ waitMs: () => this.config.approvalTimeoutMs });
    this.workspaces = new WorkspaceScope(options.workspaces ?? [defaultWorkspace(process.cwd())]);
    this.upstreams = new UpstreamSet(
      this.log,
      (upstream, method, params, signal, caller) => this.relay(upstream, method, params, signal, caller),
      options.upstream,
    );
    // Until the start-up wait is over, one registry is built at its end, so names that collide are
    // given by the documented rule rather than by which server answered first.
    this.upstreams.on('changed', () => {
      if (this.#startupWaitOver) this.refresh();
    });
    this.#auditRetention.start();
    const dormant = options.fromCache === true;
    const cached =
      (dormant || options.listFromCache) && options.catalogueCache
        ? options.catalogueCache.read(options.servers)
        : new Map<string, CachedCatalogue>();
    this.cachedSince =
      dormant && cached.size > 0
        ? Math.min(...[...cached.values()].map((entry) => entry.savedAt))
        : undefined;
    const catalogs = new Map([...cached].map(([name, entry]) => [name, entry.catalog]));
    // Launching servers (finding bwrap, spawning them) holds the event loop a while, and the
    // children then compete for the CPU: what is already waiting (a client's initialize) is read
    // and answered first. That takes a poll of the event loop; one immediate is not enough, as
    // this may itself run in a poll callback (the command's modules loaded by an fs read), and
    // that turn's immediates come before the next poll.
    const everyServerCached = !dormant && cached.size === options.servers.size;
    const held =
      everyServerCached && options.startServersAfterFirstList
        ? this.#holdServers(options.startServersAfterFirstList)
        : undefined;
    let cachedChange: RegistryChange | undefined;
    const launched = afterOnePoll().then(() => {
      this.upstreams.start(options.servers, catalogs, { dormant, ...(held && { after: held }) });
      // Every server's catalogue is known: the registry is built from them now, names given by
      // the same rule as at the end of the wait; a server that lists otherwise joins as it would.
      if (everyServerCached) cachedChange = this.#rebuildRegistry();
    });
    // The search index follows once the first list is answered (held), else a turn later: a list
    // does not need it, and calls, searches among them, wait for `started`.
    const indexed = launched
      .then(() => held ?? new Promise((resolve) => setImmediate(resolve)))
      .then(() => {
        if (cachedChange) this.#reindex(cachedChange);
      });
    this.started = launched
      .then(() => Promise.all([held, indexed]))
      .then(() =>
        Promise.all([
          this.learning.load(),
          this.upstreams.settled(options.startupWaitMs ?? options.config.startupWaitMs),
        ]),
      )
      .then(() => {
        this.#startupWaitOver = true;
        this.refresh();
      });
    this.listed = everyServerCached ? launched : this.started;
  }

  /** Settles once a session's tools/list was answered (see toolsListed) and the answer is out, or after `holdMs`. */
  #holdServers({ outputDrained, holdMs = FIRST_LIST_HOLD_MS }: ServerHold): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, holdMs);
      timer.unref();
      // After this turn, in which the answer is sent; a client that stops reading is waited for no longer than the timer.
      this.#releaseServers = () =>
        setImmediate(() =>
          outputDrained().then(() => {
            clearTimeout(timer);
            resolve();
          }),
        );
    });
  }

  toolsListed(): void {
    this.#releaseServers?.();
    this.#releaseServers = undefined;
  }

  /**
   * Starts every server in parallel and returns at once: sessions can begin while the servers
   * start (see `started`); those still starting after the start-up wait join when ready, and
   * those that fail keep retrying.
   */
  static launch(options: AggregatorOptions): Aggregator {
    return new Aggregator(options);
  }

  /** launch(), then the start-up wait. */
  static async start(options: AggregatorOptions): Promise<Aggregator> {
    const aggregator = Aggregator.launch(options);
    await aggregator.started;
    return aggregator;
  }

  async stop(): Promise<void> {
    this.#auditRetention.stop();
    await Promise.allSettled(
      this.parkedCalls.releaseAll().map((call) => abandon(this, call, 'toolmesh stopped while it waited')),
    );
    await Promise.allSettled([...this.sessions].map((session) => session.server.close()));
    await this.upstreams.stop();
    await this.learning.close();
  }

  /**
   * Applies a new config without dropping client sessions; reloads run one at a time. Servers it
   * starts are not waited for: they join when ready.
   */
  reload(next: {
    config: AggregatorConfig;
    servers: ReadonlyMap<string, ServerConfig>;
    workspaces?: readonly Workspace[];
  }) {
    const run = this.reloading.then(async () => {
      this.config = next.config;
      this.registry.maxNameLength = next.config.toolNameMaxLength;
      this.policy = new Policy(next.config);
      this.approvals = this.#approvalPort(next.config);
      if (next.workspaces) this.workspaces = new WorkspaceScope(next.workspaces);
      for (const session of this.sessions) void session.server.sendToolListChanged().catch(() => undefined);
      const outcome = await this.upstreams.reconcile(next.servers);
      this.refresh();
      this.log.info('config reloaded', outcome);
      return outcome;
    });
    this.reloading = run.catch((error: Error) => this.log.error(`reload failed: ${error.message}`));
    return run;
  }

  /** A session server for one client session, in a mode the operator chose (the config's default otherwise). */
  createSessionServer(
    options: {
      exposure?: Exposure;
      mode?: string;
      workspace?: string;
      transport?: 'stdio' | 'http';
      /** Who the session acts for; default: the local user. */
      identity?: string;
      /** The modes its token may use, when limited: exit_plan_mode may not leave them. */
      allowedModes?: readonly string[];
      /** Default: a 2025 session opening now. */
      era?: SessionEra;
      /** What a 2026-07-28 client's state is bound to (its token's hash); default: the identity. */
      principal?: string;
    } = {},
  ) {
    const mode = options.mode ?? this.config.defaultMode;
    if (!this.policy.table.has(mode)) {
      throw new Error(
        `mode ${mode} is not configured; the modes are ${this.policy.table.names().join(', ')}`,
      );
    }
    if (options.workspace !== undefined && !this.workspaces.get(options.workspace)) {
      throw new Error(
        `workspace ${options.workspace} is not configured; the workspaces are ${this.workspaces.workspaces.map((workspace) => workspace.id).join(', ')}`,
      );
    }
    const workspace = this.workspaces.binding(options.workspace);
    const identity = options.identity ?? localIdentity();
    return sessionServerFor(this, {
      exposure: options.exposure ?? this.config.exposure,
      mode,
      identity,
      principal: options.principal ?? identity,
      era: options.era ?? 'legacy',
      ...(options.allowedModes && { allowedModes: options.allowedModes }),
      ...(workspace && { workspace }),
      transport: options.transport ?? 'stdio',
    });
  }

  /** Whether a tool's calls name a workspace: those of per-workspace servers, and those marked so. */
  isWorkspaceScoped(entry: ToolEntry): boolean {
    return entry.instances !== undefined || this.policy.factsOf(entry).workspaceScoped;
  }

  /** A tool as one session sees it: its exposed name, and `workspace_id` as the session needs it. */
  listedTool(session: ClientSession, entry: ToolEntry) {
    const inputSchema = this.workspaces.presentedSchema(
      entry,
      this.isWorkspaceScoped(entry),
      session.workspace,
    );
    return { ...this.registry.listed(entry), inputSchema };
  }

  attach(session: ClientSession, transport: 'stdio' | 'http'): void {
    this.sessions.add(session);
    void this.state
      .saveSession({ id: session.id, mode: session.mode, transport, startedAt: Date.now() })
      .catch((error: Error) => this.log.warning(`could not record session: ${error.message}`));
  }

  sawModernClient(session: ClientSession, facts: ModernRequestFacts): void {
    this.modernClients.saw(session, facts);
  }

  whileCalling(session: ClientSession): () => void {
    this.#modernCalls.add(session);
    return () => this.#modernCalls.delete(session);
  }

  /** Whether exit_plan_mode can take a session out of `mode`. */
  canExitMode(mode: string): boolean {
    return this.policy.table.definition(mode)?.exitTo !== undefined;
  }

  /**
   * Changes a session's mode (after an approved exit_plan_mode) and tells its client the tool
   * list changed. A 2026-07-28 client's mode is bound to its principal on that endpoint: kept in
   * the state as a closed session record under its state id, which any process reads back.
   */
  async setSessionMode(session: ClientSession, mode: string): Promise<void> {
    session.mode = mode;
    if (session.modern) {
      this.modernClients.switched(session.id, mode);
      const now = Date.now();
      await this.state.saveSession({
        id: session.id,
        mode,
        ...(session.workspace !== undefined && { workspace: session.workspace }),
        transport: session.transport,
        startedAt: now,
        endedAt: now,
      });
      this.#boundModes.set(session.id, mode);
      return;
    }
    await this.state.setSessionMode(session.id, mode);
    await session.server.sendToolListChanged().catch(() => undefined);
  }

  async boundMode(stateId: string): Promise<string | undefined> {
    const mode = await this.#boundModes.get(stateId, async () => (await this.state.session(stateId))?.mode);
    // A mode the config no longer has binds nothing: the endpoint's own mode applies.
    return mode !== undefined && this.policy.table.has(mode) ? mode : undefined;
  }

  /**
   * Whether a session can call a tool now, and if not, why; `approval` says why a person will be
   * asked first. Being allowed by the mode is not enough: the server must be up too.
   */
  callability(
    session: ClientSession,
    entry: ToolEntry,
  ): { callable: boolean; reason?: string; approval?: string } {
    const decision = this.policy.decide(session.mode, entry);
    if (decision.verdict === 'deny')
      return { callable: false, reason: `blocked in ${decision.mode} mode: ${decision.rule}` };
    const availability = this.#toolAvailability(entry, session.workspace);
    if (!availability.callable) return availability;
    return decision.verdict === 'confirm'
      ? { callable: true, approval: decision.approvalReason ?? decision.rule }
      : { callable: true };
  }

  detach(session: ClientSession): void {
    this.sessions.delete(session);
    this.learning.forget(session.id);
    void this.state.endSession(session.id, Date.now()).catch(() => undefined);
  }

  /**
   * A session's client can now be reached outside its own calls (it opened its event stream):
   * roots it announced at initialization are asked for now, since before this the request
   * for them would have been lost.
   */
  sessionReachable(server: Server): void {
    const session = [...this.sessions].find((candidate) => candidate.server === server);
    if (!session || session.reachable) return;
    session.reachable = true;
    if (server.getClientCapabilities()?.roots) this.rootsChanged();
  }

  /** A client's roots appeared or changed: downstream servers ask again (and reach that client). */
  rootsChanged(): void {
    for (const upstream of this.upstreams.list()) void upstream.rootsChanged();
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** The client sessions connected now, for the dashboard. */
  liveSessions(): ClientSession[] {
    return [...this.sessions];
  }

  /** The configured servers on their first start: their tools are listed only from the cache, if at all. */
  startingServers(): string[] {
    const starting = this.upstreams
      .list()
      .filter((upstream) => upstream.state === 'starting')
      .map((upstream) => instanceOf(upstream.name).server);
    return [...new Set(starting)];
  }

  /** Whether a server's tools can be called now, and if not, why. */
  availability(server: string): { callable: boolean; reason?: string } {
    const upstream = this.upstreams.get(server);
    if (!upstream) return { callable: false, reason: `server ${server} is not configured` };
    // A dormant server starts on the call.
    if (upstream.state === 'ready' || upstream.state === 'dormant') return { callable: true };
    return { callable: false, reason: new UpstreamUnavailable(upstream).message };
  }

  /** A per-workspace tool is up where its workspace's instance is (any instance, for an unbound session). */
  #toolAvailability(entry: ToolEntry, workspace: string | undefined): { callable: boolean; reason?: string } {
    if (!entry.instances) return this.availability(entry.server);
    const candidates =
      workspace !== undefined ? [entry.instances.get(workspace)] : [...entry.instances.values()];
    const checked = candidates.map((upstream) =>
      upstream
        ? this.availability(upstream)
        : { callable: false, reason: `${entry.server} does not serve workspace ${workspace}` },
    );
    return checked.find((availability) => availability.callable) ?? checked[0] ?? { callable: false };
  }

  #rootsOf(workspace: string): { uri: string; name: string }[] {
    const roots = this.workspaces.get(workspace)?.roots ?? [];
    return roots.map((root) => ({ uri: pathToFileURL(root).href, name: path.basename(root) || root }));
  }

  #approvalPort(config: AggregatorConfig): ApprovalPort {
    return new ApprovalPort({ state: this.state, timeoutMs: config.approvalTimeoutMs, log: this.log });
  }

  /**
   * Rebuilds the registry and tells every client which lists changed: the tool list also when a
   * server went down or came back (what is callable changed, and a client may want to list again).
   */
  private refresh(): void {
    const change = this.#rebuild();
    const ready = this.upstreams
      .list()
      .filter((upstream) => upstream.state === 'ready')
      .map((upstream) => upstream.name)
      .join('\0');
    const readinessChanged = ready !== this.lastReady;
    this.lastReady = ready;
    const toolsChanged =
      change.added.length + change.removed.length + change.updated.length > 0 || readinessChanged;
    for (const session of this.sessions) {
      if (toolsChanged) void session.server.sendToolListChanged().catch(() => undefined);
      if (change.promptsChanged) void session.server.sendPromptListChanged().catch(() => undefined);
      if (change.resourcesChanged) void session.server.sendResourceListChanged().catch(() => undefined);
    }
  }

  /** The registry and the search index rebuilt from the catalogues the servers have now. */
  #rebuild(): RegistryChange {
    const change = this.#rebuildRegistry();
    this.#reindex(change);
    return change;
  }

  #rebuildRegistry(): RegistryChange {
    const change = this.registry.rebuild(this.upstreams.list());
    this.#saveCatalogues();
    return change;
  }

  /** The search index (and its embeddings) brought in line with a change of the registry. */
  #reindex(change: RegistryChange): void {
    for (const name of change.removed) this.index.remove(name);
    for (const entry of [...change.added, ...change.updated]) this.index.upsert(indexedTool(entry));
    this.embeddings.follow(
      () => this.registry.tools().map(indexedTool),
      change.added.length + change.removed.length + change.updated.length > 0,
    );
  }

  /** The catalogues of the servers that are up, for the next one-shot command; a failure costs only the cache. */
  #saveCatalogues(): void {
    if (!this.#catalogueCache) return;
    try {
      this.#catalogueCache.save(this.upstreams.list().filter((upstream) => upstream.state === 'ready'));
    } catch (error) {
      this.log.warning(
        `could not keep the tool catalogue in ${this.#catalogueCache.file}: ${(error as Error).message}`,
      );
    }
  }

  /**
   * A downstream server asks its client for sampling, elicitation or roots: the request goes to
   * the client of the call it belongs to (see relayTarget), never to another person's client.
   * `caller` made that call, when the wire said which call the request is part of.
   */
  private async relay(
    upstream: string,
    method: RelayedMethod,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal,
    caller: unknown,
  ): Promise<Record<string, unknown>> {
    const { workspace } = instanceOf(upstream);
    // A workspace's instance works on that workspace's roots, whatever folders a client has open.
    if (method === 'roots/list' && workspace !== undefined) return { roots: this.#rootsOf(workspace) };
    // What callDownstream (forward.ts) gave the upstream's callTool.
    const known = caller as CallerOfCall | undefined;
    const target = relayTarget([...this.sessions, ...this.#modernCalls], upstream, method, known?.session);
    const request = { method, ...(params && { params }) } as never;
    // Asked as part of the call, the request travels on that call's response stream, which every
    // Streamable HTTP client reads (the separate event stream is one a client may never open);
    // a 2026-07-28 call is parked and answers input_required with it (see parkableCall).
    const call = known ? known.call : target.latestCall(upstream);
    const asked = call
      ? call.send(request, PASSTHROUGH, { signal })
      : target.server.request(request, PASSTHROUGH, { signal });
    return asked as Promise<Record<string, unknown>>;
  }
}

export { installedFirstPartyServers } from './config/first-party.js';
export { ConfigError, loadConfigFile, parseConfig } from './config/load.js';
export type { AggregatorConfig, ServerConfig } from './config/schema.js';
export { configJsonSchema, configSchema } from './config/schema.js';
export { ToolIndex } from './discovery/tool-index.js';
export { type OpenStateOptions, openState, type StateSettings } from './state/open-state.js';
export { SqliteState } from './state/sqlite-state.js';
export type { AggregatorState, StateHealth } from './state/state.js';
export { StateUnavailableError } from './state/state-unavailable.js';
