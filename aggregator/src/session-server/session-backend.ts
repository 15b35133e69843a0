import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@toolmesh/core';
import type { ApprovalPort } from '../approvals/approval-port.js';
import type { RequestStateSeal } from '../approvals/request-state.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditRecord } from '../audit/audit-record.js';
import type { AggregatorConfig } from '../config/schema.js';
import type { ConfiguredEmbeddings } from '../discovery/configured-embeddings.js';
import type { DiscoveryLearning } from '../discovery/learning.js';
import type { ToolIndex } from '../discovery/tool-index.js';
import type { Policy } from '../policy/policy.js';
import type { Registry, ToolEntry } from '../registry/registry.js';
import type { AggregatorState } from '../state/state.js';
import type { UpstreamSet } from '../upstream/upstream-set.js';
import type { WorkspaceScope } from '../workspaces/workspace-scope.js';
import type { ModernRequestFacts } from './modern-clients.js';
import type { ParkedCalls } from './parked-calls.js';
import type { ClientSession } from './session.js';

/** Whether a session can call a tool now; `reason` says why not, `approval` why a person is asked first. */
export interface Callability {
  callable: boolean;
  reason?: string;
  approval?: string;
}

/**
 * All the session server and toolmesh's own tools know of what stands behind them: the
 * registry, policy, upstreams and state, each narrowed to what a session uses. The Aggregator
 * implements it; the session server never imports the Aggregator, so either can change alone
 * (as playwright-mcp's MCP layer knows only its ServerBackend).
 */
export interface SessionBackend {
  readonly log: Logger;
  /** Settles when the first registry is built; what reads the registry waits for it. */
  readonly started: Promise<void>;
  /**
   * Settles when the registry first lists every configured server: at once when each one's
   * catalogue is cached, otherwise with `started`. Lists wait for it; calls wait for `started`.
   */
  readonly listed: Promise<void>;
  /** The limits a forwarded call runs under, as the config says now. */
  readonly config: Pick<AggregatorConfig, 'callTimeoutMs' | 'resultMaxBytes' | 'approvalTimeoutMs'>;
  readonly registry: Pick<
    Registry,
    'tools' | 'tool' | 'prompt' | 'listedPrompts' | 'resources' | 'resourceTemplates' | 'resourceOwner'
  >;
  readonly upstreams: Pick<UpstreamSet, 'get' | 'list'>;
  readonly policy: Pick<Policy, 'decide' | 'table'>;
  readonly approvals: Pick<ApprovalPort, 'ask' | 'roundTrip'>;
  /** Seals and opens the state of round trips (approvals, servers' questions) with 2026-07-28 clients. */
  readonly requestStateSeal: RequestStateSeal;
  /** The 2026-07-28 calls this process holds while their clients answer what their servers asked. */
  readonly parkedCalls: ParkedCalls;
  readonly audit: Pick<AuditLog, 'open' | 'refusal' | 'write'>;
  /** Told of every tools/call's record as it is written (the fleet's metrics). */
  readonly callObservers: ReadonlySet<(record: AuditRecord) => void>;
  readonly workspaces: Pick<WorkspaceScope, 'route' | 'workspaces'>;
  readonly index: Pick<ToolIndex, 'find' | 'accepts' | 'search'>;
  readonly embeddings: Pick<ConfiguredEmbeddings, 'stage'>;
  readonly learning: Pick<DiscoveryLearning, 'called' | 'searched'>;
  /** Each session's todo list. */
  readonly state: Pick<AggregatorState, 'readTodos' | 'writeTodos'>;

  /** A session began: it is counted, recorded, and told when lists change. */
  attach(session: ClientSession, transport: 'stdio' | 'http'): void;
  detach(session: ClientSession): void;
  /**
   * A 2026-07-28 request's session while its call runs on a server: what that server asks its
   * client is answered for it (refused, saying why) and never reaches another client. Returns
   * the function that ends it.
   */
  whileCalling(session: ClientSession): () => void;
  /** A 2026-07-28 request acts as `session`: it has no session to count, so it is remembered for a while. */
  sawModernClient(session: ClientSession, facts: ModernRequestFacts): void;
  /** A session answered tools/list: the first one lets servers held for it start. */
  toolsListed(): void;
  /** A client's roots appeared or changed: downstream servers ask again. */
  rootsChanged(): void;
  /** The mode a 2026-07-28 client's principal switched to on this endpoint, if it did. */
  boundMode(stateId: string): Promise<string | undefined>;
  /** Changes a session's mode (after an approved exit_plan_mode) and tells its client the tool list changed. */
  setSessionMode(session: ClientSession, mode: string): Promise<void>;
  /** Whether exit_plan_mode can take a session out of `mode`. */
  canExitMode(mode: string): boolean;
  /** Whether a tool's calls name a workspace. */
  isWorkspaceScoped(entry: ToolEntry): boolean;
  /** A tool as one session sees it: its exposed name, and `workspace_id` as the session needs it. */
  listedTool(session: ClientSession, entry: ToolEntry): Tool;
  callability(session: ClientSession, entry: ToolEntry): Callability;
  /** Whether a server's tools can be called now, and if not, why. */
  availability(server: string): { callable: boolean; reason?: string };
  /** The configured servers on their first start: their tools are listed only from the cache, if at all. */
  startingServers(): string[];
}
