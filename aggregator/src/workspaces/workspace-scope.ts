import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolEntry } from '../registry/registry.js';
import { servesWorkspace, type Workspace } from './workspace.js';

export const WORKSPACE_PARAMETER = 'workspace_id';

type Schema = Tool['inputSchema'];

/** Where a workspace-scoped call goes, or why it cannot. */
export type WorkspaceRoute = { upstream: string; arguments: Record<string, unknown> } | { refusal: string };

function ownsParameter(tool: Tool): boolean {
  return Object.hasOwn(tool.inputSchema.properties ?? {}, WORKSPACE_PARAMETER);
}

function listOf(workspaces: readonly Workspace[]): string {
  return workspaces.map((workspace) => `${workspace.id} (${workspace.name})`).join(', ');
}

/**
 * The workspaces a session can address and the tools that need one: the tools of per-workspace
 * servers, and those whose server marks them `toolmesh/workspaceScoped`.
 */
export class WorkspaceScope {
  constructor(readonly workspaces: readonly Workspace[]) {}

  get(id: string): Workspace | undefined {
    return this.workspaces.find((workspace) => workspace.id === id);
  }

  /** The workspace a new session is bound to: the one asked for, or the only one there is. */
  binding(asked: string | undefined): string | undefined {
    if (asked !== undefined) return asked;
    return this.workspaces.length === 1 ? this.workspaces[0]?.id : undefined;
  }

  serving(entry: ToolEntry): Workspace[] {
    return this.workspaces.filter(
      (workspace) =>
        servesWorkspace(workspace, entry.server) && (!entry.instances || entry.instances.has(workspace.id)),
    );
  }

  /**
   * The schema a session sees: a bound session never passes the id (toolmesh adds it), any other
   * session must, from the workspaces that tool serves.
   */
  presentedSchema(entry: ToolEntry, scoped: boolean, bound: string | undefined): Schema {
    const schema = entry.tool.inputSchema;
    if (!scoped) return schema;
    const { [WORKSPACE_PARAMETER]: _ignored, ...properties } = schema.properties ?? {};
    const required = (schema.required ?? []).filter((name) => name !== WORKSPACE_PARAMETER);
    if (bound !== undefined) return { ...schema, properties, ...(required.length > 0 && { required }) };
    const parameter = {
      type: 'string',
      enum: this.serving(entry).map((workspace) => workspace.id),
      description: 'The workspace to act in; list_workspaces lists them.',
    };
    return {
      ...schema,
      properties: { [WORKSPACE_PARAMETER]: parameter, ...properties },
      required: [WORKSPACE_PARAMETER, ...required],
    };
  }

  /**
   * Picks the workspace of a call and the upstream serving it. A bound session's id is added, and
   * another id is refused, never rewritten; an unbound session must name one it can use.
   */
  route(
    entry: ToolEntry,
    scoped: boolean,
    bound: string | undefined,
    args: Record<string, unknown>,
  ): WorkspaceRoute {
    if (!scoped) return { upstream: entry.server, arguments: args };
    const { [WORKSPACE_PARAMETER]: given, ...rest } = args;
    const serving = this.serving(entry);
    if (bound !== undefined && given !== undefined && given !== bound) {
      return {
        refusal: `${WORKSPACE_PARAMETER} "${String(given)}" is not this session's workspace: this session works in ${bound} only, so leave ${WORKSPACE_PARAMETER} out.`,
      };
    }
    const id = bound ?? given;
    if (id === undefined)
      return { refusal: `${entry.exposed} needs ${WORKSPACE_PARAMETER}: one of ${listOf(serving)}.` };
    const workspace = serving.find((candidate) => candidate.id === id);
    if (!workspace) {
      const known = this.get(String(id));
      return {
        refusal: known
          ? `${entry.server} does not serve workspace ${known.id}; it serves ${listOf(serving) || 'no workspace'}.`
          : `Unknown ${WORKSPACE_PARAMETER} "${String(id)}": the workspaces are ${listOf(serving)}.`,
      };
    }
    const upstream = entry.instances?.get(workspace.id) ?? entry.server;
    const forwarded = ownsParameter(entry.tool) ? { ...rest, [WORKSPACE_PARAMETER]: workspace.id } : rest;
    return { upstream, arguments: forwarded };
  }
}
