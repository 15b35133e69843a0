import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ListToolsResult,
  PROTOCOL_VERSION_META_KEY,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  IdleServers,
  packageVersion,
  runTool,
  serveToolCalls,
  toolListEntry,
  whileServing,
} from '@toolmesh/core';
import { OWN_TOOL_NAMES } from '../registry/naming.js';
import { AGGREGATOR_TOOLS } from '../tools/index.js';
import { ErrorCode, McpError } from '../upstream/legacy-error.js';
import { auditedToolCall, awaitingApproval, endedWith } from './audited-tool-call.js';
import { refusalOf } from './authorize.js';
import type { Extra } from './call-channel.js';
import { forwardToolCall } from './forward.js';
import { resumeParkedCall, resumesParkedCall } from './resume-parked-call.js';
import { type AskedCapability, ClientSession, type Exposure } from './session.js';
import type { SessionBackend } from './session-backend.js';

/**
 * How long a 2026-07-28 client may keep a tools/list answer, and for whom: the list follows the
 * registry (servers come and go) and the caller's mode, so it is short-lived and private.
 */
const TOOL_LIST_CACHE = { ttlMs: 30_000, cacheScope: 'private' } as const;
/** What server/discover says (capabilities, instructions) is the same for every caller. */
const DISCOVER_CACHE = { ttlMs: 5 * 60_000, cacheScope: 'public' } as const;

/**
 * Which protocol era a session server is made for: `legacy` for a 2025 session that is opening
 * now (an HTTP initialize, `/sse`, in process), `modern` for one 2026-07-28 request over HTTP,
 * `either` when the client's first message decides (stdio).
 */
export type SessionEra = 'legacy' | 'modern' | 'either';

/**
 * The state id of a 2026-07-28 client: it has no session, so its todo list and a mode it
 * switched to belong to its principal on the endpoint it calls (mode and workspace), and any
 * toolmesh process on the same state finds them.
 */
export function principalStateId(principal: string, mode: string, workspace: string | undefined): string {
  const digest = createHash('sha256')
    .update(`${principal}\0${mode}\0${workspace ?? ''}`)
    .digest('base64url');
  return `principal:${digest.slice(0, 32)}`;
}

const ASKED_CAPABILITIES: readonly AskedCapability[] = ['elicitation', 'sampling', 'roots'];

const ownTools = AGGREGATOR_TOOLS.map((definition) => ({ definition, listed: toolListEntry(definition) }));
const ownByName = new Map(ownTools.map((own) => [own.definition.name, own]));

function upstreamFor(backend: SessionBackend, server: string | undefined, what: string) {
  const upstream = server ? backend.upstreams.get(server) : undefined;
  if (!upstream) throw new McpError(ErrorCode.InvalidParams, `No server offers ${what}.`);
  return upstream;
}

function requestOptions(context: ServerContext) {
  return { signal: context.mcpReq.signal };
}

/** The revision a 2026-07-28 request is of when its `_meta` does not name one. */
const MODERN_REVISION = '2026-07-28';

/** Whether a request is of the 2026-07-28 era: it carries the per-request envelope in `_meta`. */
const isModern = (context: ServerContext) => context.mcpReq.envelope !== undefined;

/** What a session server is made for. */
export interface SessionServerOptions {
  exposure: Exposure;
  mode: string;
  identity: string;
  workspace?: string;
  allowedModes?: readonly string[];
  transport: 'stdio' | 'http';
  era: SessionEra;
  /** What a 2026-07-28 client's state is bound to: its token (hash), else its identity. */
  principal: string;
}

const idleModernServers = new WeakMap<SessionBackend, IdleServers>();

/**
 * The session server for `options`. One made for a 2026-07-28 request serves the next request
 * made for the same options once its exchange is over: everything else it serves comes from the
 * request itself, and building one per request cost more than the call it answered.
 */
export function sessionServerFor(backend: SessionBackend, options: SessionServerOptions): Server {
  if (options.era !== 'modern') return createSessionServer(backend, options);
  let idle = idleModernServers.get(backend);
  if (!idle) {
    idle = new IdleServers();
    idleModernServers.set(backend, idle);
  }
  const { exposure, mode, identity, workspace, allowedModes, transport, principal } = options;
  const key = JSON.stringify([exposure, mode, identity, workspace, allowedModes, transport, principal]);
  return idle.take(key, () => createSessionServer(backend, options));
}

/**
 * The MCP server one client session talks to: the merged tools (or only the discovery tools),
 * prompts and resources of every upstream, each request forwarded to the server that owns it.
 */
function createSessionServer(
  backend: SessionBackend,
  { exposure, mode, identity, workspace, allowedModes, transport, era, principal }: SessionServerOptions,
): Server {
  const serverInfo = { name: 'toolmesh', version: packageVersion(import.meta.url), title: 'toolmesh' };
  const server = new Server(serverInfo, {
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true, subscribe: true },
      completions: {},
      logging: {},
    },
    cacheHints: { 'tools/list': TOOL_LIST_CACHE, 'server/discover': DISCOVER_CACHE },
    instructions:
      'toolmesh proxies many MCP servers. Tools are named <server>__<tool>, except those of servers configured to keep their own names. To find a tool, call search_tool_bm25 with keywords (service, verb, object), then call it directly or through call_tool.',
  });
  const session = new ClientSession(server, exposure, mode, identity, workspace, allowedModes);
  session.transport = transport;
  // A 2025 session is attached (counted, recorded, told of list changes) once it is one: at
  // once when it is opening now, after its initialize over stdio; a 2026-07-28 request never is.
  let attached = false;
  const attach = () => {
    if (attached) return;
    attached = true;
    backend.attach(session, transport);
  };
  if (era === 'legacy') attach();
  server.onclose = () => {
    if (attached) backend.detach(session);
    void session.unsubscribeAll();
  };
  session.reachable = transport === 'stdio';
  // A 2025 session's plain tools/call requests are answered past the SDK once it is open.
  let initialized = false;
  server.oninitialized = () => {
    initialized = true;
    attach();
    if (session.reachable && server.getClientCapabilities()?.roots) backend.rootsChanged();
  };

  const stateId = principalStateId(principal, mode, workspace);
  /**
   * Who a request acts as: the 2025 session, or for a 2026-07-28 request a session of its own
   * made from the request (the endpoint's mode, or the one its principal switched to; the
   * workspace and identity the endpoint gave), keyed by the principal's state id.
   */
  const sessionOf = async (
    context: ServerContext,
    call?: { name: string; arguments?: Record<string, unknown> },
  ): Promise<ClientSession> => {
    if (!isModern(context)) return session;
    const bound = await backend.boundMode(stateId);
    // A token whose modes were narrowed since it switched is held to them.
    const allowed = bound !== undefined && (!allowedModes || allowedModes.includes(bound));
    const modern = new ClientSession(
      server,
      exposure,
      allowed ? bound : mode,
      identity,
      workspace,
      allowedModes,
      stateId,
    );
    modern.transport = transport;
    const envelope = context.mcpReq.envelope as Record<string, unknown> | undefined;
    const capabilities = (envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? {}) as Partial<
      Record<AskedCapability, unknown>
    >;
    modern.roundTrip = {
      requestState: context.mcpReq.requestState(),
      inputResponses: context.mcpReq.inputResponses,
      declares: new Set(ASKED_CAPABILITIES.filter((capability) => capabilities[capability] !== undefined)),
      ...(call && { call: { name: call.name, arguments: call.arguments ?? {} } }),
    };
    const client = envelope?.[CLIENT_INFO_META_KEY] as { name?: unknown; version?: unknown } | undefined;
    backend.sawModernClient(modern, {
      revision: String(envelope?.[PROTOCOL_VERSION_META_KEY] ?? MODERN_REVISION),
      ...(typeof client?.name === 'string' && {
        client: `${client.name} ${String(client.version ?? '')}`.trim(),
      }),
    });
    return modern;
  };

  server.setNotificationHandler('notifications/roots/list_changed', async () => backend.rootsChanged());
  // Downstream log messages are filtered here, per session: the servers are shared by every client.
  server.setRequestHandler('logging/setLevel', (request) => {
    session.logLevel = request.params.level;
    return {};
  });

  // A session may begin while the servers start; what it asks of the registry waits for the
  // first one, built at the end of the start-up wait (or, for lists, from the cache at once).
  // (Typed as the handler it wraps, so each keeps its schema's inferred types; the SDK awaits
  // whatever a handler returns.)
  const after =
    (ready: Promise<void>) =>
    <H extends (...args: never[]) => unknown>(handler: H): H =>
      (async (...args: Parameters<H>) => {
        await ready;
        return handler(...args);
      }) as H;
  const afterStart = after(backend.started);
  // A list can be answered from the cached catalogues while the servers start (see `listed`).
  const afterListed = after(backend.listed);

  // The mode decides what is listed as well as what may run: what it denies is not offered.
  server.setRequestHandler(
    'tools/list',
    afterListed(async (_request, context) => {
      const session = await sessionOf(context);
      session.lastActive = Date.now();
      const offered = (named: { exposed: string; tool: Tool }) =>
        backend.policy.decide(session.mode, named).verdict !== 'deny';
      const own = ownTools
        .filter(({ listed }) => offered({ exposed: listed.name, tool: listed }))
        .filter(
          ({ listed }) => listed.name !== OWN_TOOL_NAMES.exitPlanMode || backend.canExitMode(session.mode),
        )
        .map(({ listed }) => listed);
      if (exposure === 'discovery') {
        backend.toolsListed();
        return { tools: own as ListToolsResult['tools'] };
      }
      const registered = backend.registry.tools().filter(offered);
      backend.toolsListed();
      return {
        tools: [
          ...registered.map((entry) => backend.listedTool(session, entry)),
          ...own,
        ] as ListToolsResult['tools'],
      };
    }),
  );

  const callTool = afterStart(
    async (
      request: { params: { name: string; arguments?: Record<string, unknown> } },
      context: ServerContext,
    ) => {
      const session = await sessionOf(context, request.params);
      // What reaches its client goes through this request's exchange only (see whileServing).
      const extra: Extra = whileServing(server, context.mcpReq);
      session.lastActive = Date.now();
      // A retry that answers what a server asked resumes the call parked for it, and nothing else.
      if (resumesParkedCall(backend, session)) return resumeParkedCall(backend, session, extra);
      const own = ownByName.get(request.params.name);
      if (!own && exposure === 'discovery') {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Tool "${request.params.name}" is not listed on this endpoint: call it through call_tool.`,
        );
      }
      return auditedToolCall(backend, session, async (audit) => {
        if (!own)
          return forwardToolCall(
            backend,
            session,
            request.params.name,
            request.params.arguments,
            extra,
            audit,
          );
        const refusal = await refusalOf(
          backend,
          session,
          {
            exposed: own.listed.name,
            tool: own.listed,
            server: 'toolmesh',
            arguments: request.params.arguments ?? {},
            signal: extra.signal,
          },
          audit,
        );
        if (typeof refusal === 'string') return endedWith(audit, 'refused', refusal);
        if (refusal) return awaitingApproval(audit, refusal);
        return runTool(own.definition, request.params.arguments, {
          engine: { backend, session, extra, audit },
          signal: extra.signal,
          progress: async () => undefined,
          log: backend.log,
        });
      }) as Promise<CallToolResult>;
    },
  );
  // Through the SDK, and past it for plain calls: a 2025 session's, a 2026-07-28 one.
  serveToolCalls(server, callTool, serverInfo, { sessionOpen: () => initialized });

  server.setRequestHandler(
    'prompts/list',
    afterListed(() => ({
      prompts: backend.registry.listedPrompts(),
    })),
  );
  server.setRequestHandler(
    'prompts/get',
    afterStart((request, context) => {
      const entry = backend.registry.prompt(request.params.name);
      if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt "${request.params.name}".`);
      return upstreamFor(backend, entry.upstream, `prompt ${entry.exposed}`).request(
        'prompts/get',
        { ...request.params, name: entry.prompt.name },
        requestOptions(context),
      );
    }),
  );

  server.setRequestHandler(
    'resources/list',
    afterListed(() => ({
      resources: backend.registry.resources(),
    })),
  );
  server.setRequestHandler(
    'resources/templates/list',
    afterListed(() => ({
      resourceTemplates: backend.registry.resourceTemplates(),
    })),
  );
  server.setRequestHandler(
    'resources/read',
    afterStart((request, context) => {
      const owner = backend.registry.resourceOwner(request.params.uri);
      return upstreamFor(backend, owner, `resource ${request.params.uri}`).request(
        'resources/read',
        request.params,
        requestOptions(context),
      );
    }),
  );

  server.setRequestHandler(
    'resources/subscribe',
    afterStart(async (request, context) => {
      const owner = backend.registry.resourceOwner(request.params.uri);
      const upstream = upstreamFor(backend, owner, `resource ${request.params.uri}`);
      await session.subscribe(upstream, request.params.uri, context.mcpReq.signal);
      return {};
    }),
  );
  server.setRequestHandler('resources/unsubscribe', async (request, context) => {
    await session.unsubscribe(request.params.uri, context.mcpReq.signal);
    return {};
  });

  server.setRequestHandler(
    'completion/complete',
    afterStart((request, context) => {
      const { ref } = request.params;
      if (ref.type === 'ref/prompt') {
        const entry = backend.registry.prompt(ref.name);
        if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt "${ref.name}".`);
        return upstreamFor(backend, entry.upstream, `prompt ${ref.name}`).request(
          'completion/complete',
          { ...request.params, ref: { ...ref, name: entry.prompt.name } },
          requestOptions(context),
        );
      }
      const owner = backend.registry.resourceOwner(ref.uri);
      return upstreamFor(backend, owner, `resource ${ref.uri}`).request(
        'completion/complete',
        request.params,
        requestOptions(context),
      );
    }),
  );
  return server;
}
