import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  type Tool,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { packageVersion, runTool, toolListEntry } from '@toolmesh/core';
import { OWN_TOOL_NAMES } from '../registry/naming.js';
import { AGGREGATOR_TOOLS } from '../tools/index.js';
import { auditedToolCall, endedWith } from './audited-tool-call.js';
import { refusalOf } from './authorize.js';
import { type Extra, forwardToolCall } from './forward.js';
import { ClientSession, type Exposure } from './session.js';
import type { SessionBackend } from './session-backend.js';

const ownTools = AGGREGATOR_TOOLS.map((definition) => ({ definition, listed: toolListEntry(definition) }));
const ownByName = new Map(ownTools.map((own) => [own.definition.name, own]));

function upstreamFor(backend: SessionBackend, server: string | undefined, what: string) {
  const upstream = server ? backend.upstreams.get(server) : undefined;
  if (!upstream) throw new McpError(ErrorCode.InvalidParams, `No server offers ${what}.`);
  return upstream;
}

function requestOptions(extra: Extra) {
  return { signal: extra.signal };
}

/**
 * The MCP server one client session talks to: the merged tools (or only the discovery tools),
 * prompts and resources of every upstream, each request forwarded to the server that owns it.
 */
export function createSessionServer(
  backend: SessionBackend,
  {
    exposure,
    mode,
    identity,
    workspace,
    allowedModes,
    transport,
  }: {
    exposure: Exposure;
    mode: string;
    identity: string;
    workspace?: string;
    allowedModes?: readonly string[];
    transport: 'stdio' | 'http';
  },
): Server {
  const server = new Server(
    { name: 'toolmesh', version: packageVersion(import.meta.url), title: 'toolmesh' },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { listChanged: true, subscribe: true },
        completions: {},
        logging: {},
      },
      instructions:
        'toolmesh proxies many MCP servers. Tools are named <server>__<tool>, except those of servers configured to keep their own names. To find a tool, call search_tool_bm25 with keywords (service, verb, object), then call it directly or through call_tool.',
    },
  );
  const session = new ClientSession(server, exposure, mode, identity, workspace, allowedModes);
  backend.attach(session, transport);
  server.onclose = () => {
    backend.detach(session);
    void session.unsubscribeAll();
  };
  session.reachable = transport === 'stdio';
  server.oninitialized = () => {
    if (session.reachable && server.getClientCapabilities()?.roots) backend.rootsChanged();
  };
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => backend.rootsChanged());
  // Downstream log messages are filtered here, per session: the servers are shared by every client.
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    session.logLevel = request.params.level;
    return {};
  });

  // A session may begin while the servers start; what it asks of the registry waits for the
  // first one, built at the end of the start-up wait.
  // (Typed as the handler it wraps, so each keeps its schema's inferred types; the SDK awaits
  // whatever a handler returns.)
  const afterStart = <H extends (...args: never[]) => unknown>(handler: H): H =>
    (async (...args: Parameters<H>) => {
      await backend.started;
      return handler(...args);
    }) as H;

  // The mode decides what is listed as well as what may run: what it denies is not offered.
  const offered = (named: { exposed: string; tool: Tool }) =>
    backend.policy.decide(session.mode, named).verdict !== 'deny';
  server.setRequestHandler(
    ListToolsRequestSchema,
    afterStart(() => {
      session.lastActive = Date.now();
      const own = ownTools
        .filter(({ listed }) => offered({ exposed: listed.name, tool: listed }))
        .filter(
          ({ listed }) => listed.name !== OWN_TOOL_NAMES.exitPlanMode || backend.canExitMode(session.mode),
        )
        .map(({ listed }) => listed);
      if (exposure === 'discovery') return { tools: own };
      const registered = backend.registry.tools().filter(offered);
      return { tools: [...registered.map((entry) => backend.listedTool(session, entry)), ...own] };
    }),
  );

  server.setRequestHandler(
    CallToolRequestSchema,
    afterStart(async (request, extra) => {
      session.lastActive = Date.now();
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
        if (refusal) return endedWith(audit, 'refused', refusal);
        return runTool(own.definition, request.params.arguments, {
          engine: { backend, session, extra, audit },
          signal: extra.signal,
          progress: async () => undefined,
          log: backend.log,
        });
      });
    }),
  );

  server.setRequestHandler(
    ListPromptsRequestSchema,
    afterStart(() => ({
      prompts: backend.registry.listedPrompts(),
    })),
  );
  server.setRequestHandler(
    GetPromptRequestSchema,
    afterStart((request, extra) => {
      const entry = backend.registry.prompt(request.params.name);
      if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt "${request.params.name}".`);
      return upstreamFor(backend, entry.upstream, `prompt ${entry.exposed}`).request(
        'prompts/get',
        { ...request.params, name: entry.prompt.name },
        requestOptions(extra),
      );
    }),
  );

  server.setRequestHandler(
    ListResourcesRequestSchema,
    afterStart(() => ({
      resources: backend.registry.resources(),
    })),
  );
  server.setRequestHandler(
    ListResourceTemplatesRequestSchema,
    afterStart(() => ({
      resourceTemplates: backend.registry.resourceTemplates(),
    })),
  );
  server.setRequestHandler(
    ReadResourceRequestSchema,
    afterStart((request, extra) => {
      const owner = backend.registry.resourceOwner(request.params.uri);
      return upstreamFor(backend, owner, `resource ${request.params.uri}`).request(
        'resources/read',
        request.params,
        requestOptions(extra),
      );
    }),
  );

  server.setRequestHandler(
    SubscribeRequestSchema,
    afterStart(async (request, extra) => {
      const owner = backend.registry.resourceOwner(request.params.uri);
      const upstream = upstreamFor(backend, owner, `resource ${request.params.uri}`);
      await session.subscribe(upstream, request.params.uri, extra.signal);
      return {};
    }),
  );
  server.setRequestHandler(UnsubscribeRequestSchema, async (request, extra) => {
    await session.unsubscribe(request.params.uri, extra.signal);
    return {};
  });

  server.setRequestHandler(
    CompleteRequestSchema,
    afterStart((request, extra) => {
      const { ref } = request.params;
      if (ref.type === 'ref/prompt') {
        const entry = backend.registry.prompt(ref.name);
        if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt "${ref.name}".`);
        return upstreamFor(backend, entry.upstream, `prompt ${ref.name}`).request(
          'completion/complete',
          { ...request.params, ref: { ...ref, name: entry.prompt.name } },
          requestOptions(extra),
        );
      }
      const owner = backend.registry.resourceOwner(ref.uri);
      return upstreamFor(backend, owner, `resource ${ref.uri}`).request(
        'completion/complete',
        request.params,
        requestOptions(extra),
      );
    }),
  );
  return server;
}
