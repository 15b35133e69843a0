import { randomUUID } from 'node:crypto';
import type { LoggingLevel, Server, ServerContext } from '@modelcontextprotocol/server';
import type { ResourceUpdated, Upstream } from '../upstream/upstream.js';
import type { CallerOfCall } from './relay-target.js';

export type Exposure = 'all' | 'discovery';

/** What a client can be asked as part of a call, by the capability it declares for it. */
export type AskedCapability = 'elicitation' | 'sampling' | 'roots';

/** What a 2026-07-28 request brings to a round trip (an approval, or a server's question). */
export interface RoundTrip {
  /** Echoed by the client: attacker-controlled until the seal is checked. */
  requestState: unknown;
  inputResponses: Record<string, unknown> | undefined;
  /** What its client declared in the request's `_meta`, so it can be handed such a request. */
  declares: ReadonlySet<AskedCapability>;
  /** The tool the client called, as it named it, and its arguments: a round trip's state is bound to them. */
  call?: { name: string; arguments: Record<string, unknown> };
}

/** A client's tool call in flight, through which toolmesh can ask that client something as part of it. */
export type ActiveCall = Pick<ServerContext['mcpReq'], 'send'>;

/** RFC 5424's levels, least severe first, as MCP's logging/setLevel names them. */
const LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];
const severity = (level: LoggingLevel) => LEVELS.indexOf(level);

/**
 * One client as toolmesh serves it: a 2025 session (its MCP server object and what it is doing
 * now), or one 2026-07-28 request, whose id is the principal's and whose mode and workspace
 * came with the request.
 */
export class ClientSession {
  /** What servers see as `toolmesh/conversation`: one per session, apart from the id that keys its state. */
  readonly conversation = randomUUID();
  lastActive = Date.now();
  /** Set by the client's `logging/setLevel`; downstream log messages below it are dropped. */
  logLevel: LoggingLevel | undefined;
  /**
   * Whether a request outside the client's own calls can reach it: over stdio always, over
   * Streamable HTTP only once the client has opened its event stream.
   */
  reachable = false;
  transport: 'stdio' | 'http' = 'stdio';
  /**
   * Set for a 2026-07-28 request (no session, nothing to push to; its state is its principal's):
   * what its retry of an approval round trip carries, and whether its client can show a form.
   */
  roundTrip: RoundTrip | undefined;
  /** Calls in flight, oldest first, by upstream name. */
  private readonly activeCalls = new Map<string, ActiveCall[]>();
  private readonly subscriptions = new Map<string, Upstream>();
  private readonly resourceUpdated: ResourceUpdated = (params) => {
    void this.server.sendResourceUpdated(params).catch(() => undefined);
  };

  get modern(): boolean {
    return this.roundTrip !== undefined;
  }

  constructor(
    readonly server: Server,
    readonly exposure: Exposure,
    /** Set by the operator when the session starts; only an approved exit_plan_mode changes it. */
    public mode: string,
    /** Who is calling: a token's name over HTTP, the local user over stdio. Servers get it in `_meta`. */
    readonly identity: string,
    /** The one workspace this session works in, when it is bound to one. */
    readonly workspace?: string,
    /** The modes its token may use, when it is limited; no mode change may leave them. */
    readonly allowedModes?: readonly string[],
    /**
     * toolmesh's own id for the session, the key of its todo list, mode and approvals in the
     * state: random for a 2025 session, the principal's for a 2026-07-28 request.
     */
    readonly id: string = randomUUID(),
  ) {}

  begin(upstream: string, call: ActiveCall): void {
    this.lastActive = Date.now();
    this.activeCalls.set(upstream, [...(this.activeCalls.get(upstream) ?? []), call]);
  }

  end(upstream: string, call: ActiveCall): void {
    const calls = (this.activeCalls.get(upstream) ?? []).filter((active) => active !== call);
    if (calls.length > 0) this.activeCalls.set(upstream, calls);
    else this.activeCalls.delete(upstream);
  }

  isCalling(upstream: string): boolean {
    return this.activeCalls.has(upstream);
  }

  /** Of this session's calls to `upstream` in flight, the one begun last. */
  latestCall(upstream: string): ActiveCall | undefined {
    return this.activeCalls.get(upstream)?.at(-1);
  }

  /**
   * Whether `call` carries a log message `upstream` sent now: the call it was sent with, when
   * the wire said which (`sentWith`); else, as a message cannot be told apart by call, the latest
   * of this session's calls to that server, so that it is carried only once.
   */
  carriesLog(
    upstream: string,
    call: ActiveCall,
    level: LoggingLevel,
    sentWith: CallerOfCall | undefined,
  ): boolean {
    if (this.logLevel && severity(level) < severity(this.logLevel)) return false;
    if (sentWith) return sentWith.session === this && sentWith.call === call;
    return this.latestCall(upstream) === call;
  }

  async subscribe(upstream: Upstream, uri: string, signal: AbortSignal): Promise<void> {
    if (this.subscriptions.get(uri) === upstream) return;
    await upstream.subscribe(uri, this.resourceUpdated, { signal });
    this.subscriptions.set(uri, upstream);
  }

  async unsubscribe(uri: string, signal?: AbortSignal): Promise<void> {
    const upstream = this.subscriptions.get(uri);
    this.subscriptions.delete(uri);
    await upstream?.unsubscribe(uri, this.resourceUpdated, { ...(signal && { signal }) });
  }

  /** The client went away: the servers stop sending updates nobody else asked for. */
  async unsubscribeAll(): Promise<void> {
    await Promise.allSettled([...this.subscriptions.keys()].map((uri) => this.unsubscribe(uri)));
  }
}
