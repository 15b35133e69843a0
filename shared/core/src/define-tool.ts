import type { CallToolResult, ContentBlock, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { ActionClass } from './actions.js';
import type { Logger } from './logger.js';

/** What a handler gets besides its arguments: cancellation, progress, logging and its engine. */
export interface ToolContext<Engine> {
  engine: Engine;
  signal: AbortSignal;
  /** Sends `notifications/progress` when the client asked for progress; a no-op otherwise. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  log: Logger;
  /** Who is calling: the aggregator's `toolmesh/agent`, else the server's `--agent`, else `anonymous`. */
  identity: string;
  /** The workspace of the call: its checked `workspace_id` for workspace-scoped tools, else the first served. */
  workspace: string;
  /** The request's `toolmesh/conversation`, when the aggregator passed one. */
  conversation?: string;
}

/** MCP annotations of a tool that only reads: it changes nothing, may be repeated, and stays inside its server. */
export const READ_ONLY_ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/**
 * MCP annotations of a tool that changes state but loses nothing: each change adds or can be
 * undone (a commit, a ticket event, a memory row closed rather than deleted).
 */
export const RECOVERABLE_WRITE_ANNOTATIONS = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
} as const;

/**
 * Where a tool's annotations say something its action classes contradict, so a client reading
 * the hints and a mode reading the classes would judge the tool differently; undefined when they
 * agree. A tool is read-only exactly when its only class is `read`, reaches the open world exactly
 * when it has `networkEgress`, and a read-only tool destroys nothing.
 */
export function annotationDisagreement(
  definition: Pick<ToolDefinition, 'annotations' | 'actions'>,
): string | undefined {
  const { annotations, actions } = definition;
  const onlyReads = actions.length > 0 && actions.every((action) => action === 'read');
  if (Boolean(annotations.readOnlyHint) !== onlyReads) {
    return `readOnlyHint is ${Boolean(annotations.readOnlyHint)} but the action classes are [${actions.join(', ')}]`;
  }
  const egress = actions.includes('networkEgress');
  if (Boolean(annotations.openWorldHint) !== egress) {
    return `openWorldHint is ${Boolean(annotations.openWorldHint)} but the action classes ${egress ? 'include' : 'lack'} networkEgress`;
  }
  if (annotations.readOnlyHint && annotations.destructiveHint)
    return 'a read-only tool cannot be destructive';
  return undefined;
}

const REPLY = Symbol('toolmesh.reply');

/** A handler may return its structured output alone, or with extra content blocks (images). */
export interface ToolReply<Output> {
  [REPLY]: true;
  output: Output;
  content: ContentBlock[];
}

/** Structured output plus content blocks that go before its text rendering. */
export function withContent<Output>(output: Output, content: ContentBlock[]): ToolReply<Output> {
  return { [REPLY]: true, output, content };
}

export function isToolReply(value: unknown): value is ToolReply<unknown> {
  return typeof value === 'object' && value !== null && REPLY in value;
}

const RAW = Symbol('toolmesh.raw-result');

/** A whole tool result passed on as it is: for tools without an output schema, such as a proxy. */
export interface RawResult {
  [RAW]: true;
  result: CallToolResult;
}

export function rawResult(result: CallToolResult): RawResult {
  return { [RAW]: true, result };
}

export function isRawResult(value: unknown): value is RawResult {
  return typeof value === 'object' && value !== null && RAW in value;
}

export interface ToolDefinition<
  Engine = unknown,
  Input extends z.ZodObject = z.ZodObject,
  Output extends z.ZodObject = z.ZodObject,
> {
  name: string;
  title: string;
  description: string;
  /** Groups tools for flags such as `--read-only`; `read` tools are the reading ones. */
  capability: string;
  input: Input;
  /** Omitted only by tools that pass on other tools' results (`rawResult`), which have no fixed shape. */
  output?: Output;
  annotations: Omit<ToolAnnotations, 'title'>;
  actions: readonly ActionClass[];
  requiresApproval?: boolean;
  /** Takes `workspace_id` (added to `input` by the kit, checked against the served ids before `handle`). */
  workspaceScoped?: boolean;
  /** Text rendering of the structured output, for clients that ignore `structuredContent`. */
  render?: (output: z.infer<Output>) => string;
  handle(
    input: z.infer<Input>,
    context: ToolContext<Engine>,
  ): Promise<z.infer<Output> | ToolReply<z.infer<Output>> | RawResult>;
}

// Tools of one server are stored together, so the list type erases the per-tool schema types.
// biome-ignore lint/suspicious/noExplicitAny: the element type of a heterogeneous tool list
export type AnyToolDefinition<Engine = unknown> = ToolDefinition<Engine, any, any>;

/**
 * Returns a `defineTool` bound to one server's engine type, so each tool file reads as data:
 * `export const readFile = defineTool({ name: 'read_file', ... })`.
 */
export function toolDefiner<Engine>() {
  return <Input extends z.ZodObject, Output extends z.ZodObject>(
    definition: ToolDefinition<Engine, Input, Output>,
  ): ToolDefinition<Engine, Input, Output> => {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(definition.name)) {
      throw new Error(`tool name "${definition.name}" must be 1-64 characters of [A-Za-z0-9_-]`);
    }
    if (definition.actions.length === 0) {
      throw new Error(`tool "${definition.name}" must name at least one action class`);
    }
    return definition;
  };
}
