import { z } from 'zod';
import type { AnyToolDefinition } from './define-tool.js';
import { ToolError } from './tool-error.js';

/** The argument every workspace-scoped tool takes; the aggregator fills or checks it per session. */
export const WORKSPACE_ARGUMENT = 'workspace_id';

/** Who a call comes from when neither the request nor `--agent` says. */
export const ANONYMOUS_IDENTITY = 'anonymous';

/** What a server serves calls for: the workspace ids it holds and its own identity (`--agent`). */
export interface CallingScope {
  workspaces: readonly string[];
  identity?: string;
}

const scopedInputs = new WeakMap<AnyToolDefinition, z.ZodObject>();

/**
 * A tool's input as clients see it: workspace-scoped tools gain `workspace_id`, so no tool
 * declares it by hand and every one checks it the same way.
 */
export function scopedInput(tool: AnyToolDefinition): z.ZodObject {
  if (!tool.workspaceScoped) return tool.input;
  const cached = scopedInputs.get(tool);
  if (cached) return cached;
  const input = tool.input.extend({
    [WORKSPACE_ARGUMENT]: z
      .string()
      .min(1)
      .optional()
      .describe('The workspace to act in. Optional when the server serves only one.'),
  });
  scopedInputs.set(tool, input);
  return input;
}

const strictInputs = new WeakMap<AnyToolDefinition, z.ZodObject>();

/**
 * What a call's arguments are checked against: the scoped input, refusing unknown keys. Built
 * once per tool, since zod compiles a schema on its first parse, and a schema made per call
 * paid that on every call.
 */
export function argumentsSchema(tool: AnyToolDefinition): z.ZodObject {
  let strict = strictInputs.get(tool);
  if (!strict) {
    strict = scopedInput(tool).strict();
    strictInputs.set(tool, strict);
  }
  return strict;
}

/** The workspace a call acts in; an id the server does not serve is refused with the ones it does. */
export function pickWorkspace(given: unknown, served: readonly string[]): string {
  const listing = served.map((id) => `"${id}"`).join(', ');
  if (given === undefined) {
    if (served.length === 1 && served[0] !== undefined) return served[0];
    throw new ToolError(
      `${WORKSPACE_ARGUMENT} is required here: this server serves ${listing}.`,
      'workspace_required',
    );
  }
  if (typeof given === 'string' && served.includes(given)) return given;
  throw new ToolError(
    `workspace ${JSON.stringify(given)} is not served here: use one of ${listing} (start the server with --workspace ID to serve another).`,
    'workspace_unknown',
  );
}

/**
 * The calling identity: `--agent` when the server was started with it, else the aggregator's
 * `toolmesh/agent` in the request `_meta`, else anonymous. `--agent` wins because whoever starts
 * the server sets it, while `_meta` is whatever the client sends: a client of a process pinned to
 * one identity must not speak as another (behind toolmesh, which names each session, leave it out).
 */
export function callingIdentity(requestAgent: unknown, scope: CallingScope | undefined): string {
  if (scope?.identity !== undefined) return scope.identity;
  if (typeof requestAgent === 'string' && requestAgent.trim() !== '') return requestAgent.trim();
  return ANONYMOUS_IDENTITY;
}
