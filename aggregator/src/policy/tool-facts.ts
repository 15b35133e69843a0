import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { type ActionClass, isActionClass, META_KEYS } from '@toolmesh/core';

/** What the policy needs to know of a tool, and where it was learnt. */
export interface ToolFacts {
  actions: ActionClass[];
  requiresApproval: boolean;
  workspaceScoped: boolean;
  /** server: its `_meta`; annotations: its MCP hints; config: a `toolPolicy` entry changed it. */
  source: 'server' | 'annotations' | 'config';
}

export interface ToolFactsOverride {
  actions?: ActionClass[];
  requiresApproval?: boolean;
  workspaceScoped?: boolean;
}

function declaredActions(meta: Record<string, unknown> | undefined): ActionClass[] | undefined {
  const actions = meta?.[META_KEYS.actions];
  if (!Array.isArray(actions) || actions.length === 0 || !actions.every(isActionClass)) return undefined;
  return actions;
}

/**
 * A third-party tool's classes from its annotations, read as the MCP specification defines their
 * defaults: a tool that does not say it is read-only may change things, and one that does not say
 * its world is closed may reach the network.
 */
function annotatedActions(annotations: Tool['annotations']): ActionClass[] {
  const reads = annotations?.readOnlyHint === true;
  const openWorld = annotations?.openWorldHint !== false;
  const actions: ActionClass[] = [reads ? 'read' : 'worktreeWrite'];
  if (openWorld) actions.push('networkEgress');
  return actions;
}

/** The policy facts of a tool as its server describes it, before any config override. */
export function declaredFacts(tool: Tool): ToolFacts {
  const meta = tool._meta as Record<string, unknown> | undefined;
  const declared = declaredActions(meta);
  return {
    actions: declared ?? annotatedActions(tool.annotations),
    requiresApproval: meta?.[META_KEYS.requiresApproval] === true,
    workspaceScoped: meta?.[META_KEYS.workspaceScoped] === true,
    source: declared ? 'server' : 'annotations',
  };
}

export function overriddenFacts(facts: ToolFacts, overrides: readonly ToolFactsOverride[]): ToolFacts {
  if (overrides.length === 0) return facts;
  return Object.assign({ ...facts, source: 'config' as const }, ...overrides);
}
