import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  type ListToolsResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { META_KEYS } from './actions.js';
import {
  argumentsSchema,
  type CallingScope,
  callingIdentity,
  pickWorkspace,
  scopedInput,
  WORKSPACE_ARGUMENT,
} from './calling-scope.js';
import {
  type AnyToolDefinition,
  isRawResult,
  isToolReply,
  type ToolContext,
  withContent,
} from './define-tool.js';
import { activitySeen } from './heap-release.js';
import { createLogger, type Logger } from './logger.js';
import { serveToolCalls } from './modern-tool-calls.js';
import { optimizeFromNowOn } from './startup-tiering.js';
import { errorMessage, ToolError } from './tool-error.js';
import { toolListEntry } from './tool-schema.js';

/** The MCP server of a tool list: the SDK v2 low-level server, which answers both protocol eras. */
export type ToolServer = Server;

export interface ToolServerOptions<Engine> {
  name: string;
  version: string;
  title?: string;
  instructions?: string;
  tools: readonly AnyToolDefinition<Engine>[];
  engine: Engine;
  log?: Logger;
  /** The workspaces served (default `["default"]`) and the identity when a request names none. */
  scope?: CallingScope;
}

/** What a caller of runTool supplies; the identity and workspace come from the call and its scope. */
export type ToolCallContext<Engine> = Omit<ToolContext<Engine>, 'identity' | 'workspace' | 'conversation'> & {
  scope?: CallingScope;
  /** The request's `toolmesh/agent`, when it came with one. */
  requestAgent?: unknown;
  /** The request's `toolmesh/conversation`, when it came with one. */
  requestConversation?: unknown;
};

const DEFAULT_SCOPE: CallingScope = { workspaces: ['default'] };

/**
 * How long a 2026-07-28 client may keep a tools/list or server/discover answer: the tools of a
 * process never change, and they are the same for every caller, so shared caches may hold them.
 */
const LIST_CACHE_HINT = { ttlMs: 5 * 60_000, cacheScope: 'public' } as const;

export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** Says which argument was wrong and why, in words a model can act on. */
export function describeArgumentIssues(tool: AnyToolDefinition, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const known = Object.keys(scopedInput(tool).shape).join(', ');
      return `unknown argument${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `\`${key}\``).join(', ')}: this tool takes ${known}`;
    }
    const where = issue.path.length > 0 ? `\`${issue.path.join('.')}\`` : 'the arguments';
    return `${where}: ${issue.message}`;
  });
  return `Invalid arguments for ${tool.name}: ${lines.join('; ')}. Fix ${lines.length > 1 ? 'them' : 'it'} and call again.`;
}

function progressSender(context: ServerContext) {
  const token = context.mcpReq._meta?.progressToken;
  return async (progress: number, total?: number, message?: string) => {
    if (token === undefined) return;
    await context.mcpReq.notify({
      method: 'notifications/progress',
      params: {
        progressToken: token,
        progress,
        ...(total !== undefined && { total }),
        ...(message && { message }),
      },
    });
  };
}

/** Validates arguments, runs the handler, and shapes every outcome as a tool result. */
export async function runTool<Engine>(
  tool: AnyToolDefinition<Engine>,
  rawArgs: unknown,
  callContext: ToolCallContext<Engine>,
): Promise<CallToolResult> {
  optimizeFromNowOn();
  activitySeen();
  const { scope = DEFAULT_SCOPE, requestAgent, requestConversation, ...context } = callContext;
  const parsed = argumentsSchema(tool).safeParse(rawArgs ?? {});
  if (!parsed.success) return errorResult(describeArgumentIssues(tool, parsed.error));
  try {
    const { [WORKSPACE_ARGUMENT]: asked, ...input } = parsed.data as Record<string, unknown>;
    const workspace = tool.workspaceScoped
      ? pickWorkspace(asked, scope.workspaces)
      : (scope.workspaces[0] ?? 'default');
    const returned = await tool.handle(tool.workspaceScoped ? input : parsed.data, {
      ...context,
      identity: callingIdentity(requestAgent, scope),
      workspace,
      ...(typeof requestConversation === 'string' &&
        requestConversation !== '' && { conversation: requestConversation }),
    });
    if (isRawResult(returned)) return returned.result;
    const reply = isToolReply(returned) ? returned : withContent(returned, []);
    if (!tool.output) throw new Error(`${tool.name} has no output schema, so it must return a raw result`);
    const output = tool.output.parse(reply.output) as Record<string, unknown>;
    const text = tool.render ? tool.render(output) : JSON.stringify(output, null, 2);
    return { content: [...reply.content, { type: 'text', text }], structuredContent: output };
  } catch (error) {
    if (context.signal.aborted) return errorResult(`${tool.name} was cancelled before it finished.`);
    if (error instanceof ToolError) return errorResult(error.message);
    context.log.error(`${tool.name} failed unexpectedly`, {
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    return errorResult(
      `${tool.name} failed unexpectedly: ${errorMessage(error)}. The server is still running; retry, or report this as a bug if it repeats.`,
    );
  }
}

/**
 * An MCP server over a list of tool definitions and the engine they share, for both protocol
 * eras: a 2025 session (after `initialize`) or one 2026-07-28 request (no session; what a call
 * needs rides in its arguments). It declares the tools and logging capabilities; no handler
 * exception can reach the transport.
 */
export function createToolServer<Engine>(options: ToolServerOptions<Engine>): ToolServer {
  const log = options.log ?? createLogger({ scope: options.name });
  const serverInfo = {
    name: options.name,
    version: options.version,
    ...(options.title && { title: options.title }),
  };
  const server = new Server(serverInfo, {
    capabilities: { tools: { listChanged: false }, logging: {} },
    ...(options.instructions && { instructions: options.instructions }),
    cacheHints: { 'tools/list': LIST_CACHE_HINT, 'server/discover': LIST_CACHE_HINT },
  });
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));

  // The entries are the v1 SDK's Tool (the aggregator lists them too); the shape is the same.
  server.setRequestHandler('tools/list', () => {
    activitySeen();
    return { tools: options.tools.map(toolListEntry) as ListToolsResult['tools'] };
  });
  // Served past the SDK for a plain 2026-07-28 call over HTTP (see serveToolCalls): the tools'
  // answers do not change, a trivial call costs less than through the SDK's per-request exchange.
  serveToolCalls(
    server,
    async (request, context) => {
      const tool = byName.get(request.params.name);
      if (!tool) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Unknown tool "${request.params.name}". Available: ${[...byName.keys()].join(', ')}`,
        );
      }
      return runTool(tool, request.params.arguments, {
        engine: options.engine,
        signal: context.mcpReq.signal,
        progress: progressSender(context),
        log,
        ...(options.scope && { scope: options.scope }),
        requestAgent: request.params._meta?.[META_KEYS.agent],
        requestConversation: request.params._meta?.[META_KEYS.conversation],
      });
    },
    serverInfo,
  );
  return server;
}
