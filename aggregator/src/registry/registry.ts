import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Upstream } from '../upstream/upstream.js';
import { assignNames, DISCOVERY_TOOL_NAMES, type NameCollision } from './naming.js';

/** `_meta` keys that tell a client (and toolmesh's CLI) where an exposed tool comes from. */
export const ORIGIN_META = { server: 'toolmesh/server', name: 'toolmesh/name' } as const;

export interface ToolEntry {
  exposed: string;
  server: string;
  tool: Tool;
}

export interface PromptEntry {
  exposed: string;
  server: string;
  prompt: Prompt;
}

export interface RegistryChange {
  added: ToolEntry[];
  removed: string[];
  /** Tools whose definition changed under the same name. */
  updated: ToolEntry[];
}

function fingerprint(tool: Tool): string {
  return JSON.stringify(tool);
}

/**
 * The merged catalogue of every upstream: tools and prompts under `<server>__<name>` (or their
 * own names, for a server with `prefix: false`), resources under their own URIs. A URI offered
 * by several servers belongs to the first in config order.
 */
export class Registry {
  private toolsByName = new Map<string, ToolEntry>();
  private promptsByName = new Map<string, PromptEntry>();
  private resourceOwners = new Map<string, string>();
  private templates: { server: string; template: ResourceTemplate }[] = [];
  private resourceList: Resource[] = [];
  collisions: NameCollision[] = [];
  /** URIs offered by more than one server, with the server that was given each. */
  uriConflicts: { uri: string; owner: string; also: string }[] = [];

  constructor(public maxNameLength: number) {}

  /** Rebuilds from the upstreams (in config order) and says what changed in the tool list. */
  rebuild(upstreams: readonly Upstream[]): RegistryChange {
    const ownName = (upstream: Upstream) => upstream.config.prefix === false;
    const tools = upstreams.flatMap((upstream) =>
      upstream.catalog.tools.map((tool) => ({
        server: upstream.name,
        name: tool.name,
        ownName: ownName(upstream),
        tool,
      })),
    );
    const namedTools = assignNames(tools, this.maxNameLength, Object.values(DISCOVERY_TOOL_NAMES));
    const next = new Map<string, ToolEntry>();
    for (const [exposed, item] of namedTools.named)
      next.set(exposed, { exposed, server: item.server, tool: item.tool });

    const prompts = upstreams.flatMap((upstream) =>
      upstream.catalog.prompts.map((prompt) => ({
        server: upstream.name,
        name: prompt.name,
        ownName: ownName(upstream),
        prompt,
      })),
    );
    const namedPrompts = assignNames(prompts, this.maxNameLength);
    this.promptsByName = new Map(
      [...namedPrompts.named].map(([exposed, item]) => [
        exposed,
        { exposed, server: item.server, prompt: item.prompt },
      ]),
    );
    this.collisions = [...namedTools.collisions, ...namedPrompts.collisions];

    this.resourceOwners = new Map();
    this.resourceList = [];
    this.uriConflicts = [];
    for (const upstream of upstreams) {
      for (const resource of upstream.catalog.resources) {
        const owner = this.resourceOwners.get(resource.uri);
        if (owner) {
          this.uriConflicts.push({ uri: resource.uri, owner, also: upstream.name });
          continue;
        }
        this.resourceOwners.set(resource.uri, upstream.name);
        this.resourceList.push(resource);
      }
    }
    this.templates = upstreams.flatMap((upstream) =>
      upstream.catalog.resourceTemplates.map((template) => ({ server: upstream.name, template })),
    );

    const change: RegistryChange = { added: [], removed: [], updated: [] };
    for (const [exposed, entry] of next) {
      const before = this.toolsByName.get(exposed);
      if (!before) change.added.push(entry);
      else if (before.server !== entry.server || fingerprint(before.tool) !== fingerprint(entry.tool)) {
        change.updated.push(entry);
      }
    }
    for (const exposed of this.toolsByName.keys()) if (!next.has(exposed)) change.removed.push(exposed);
    this.toolsByName = next;
    return change;
  }

  tools(): ToolEntry[] {
    return [...this.toolsByName.values()];
  }

  tool(exposed: string): ToolEntry | undefined {
    return this.toolsByName.get(exposed);
  }

  /** The tool as clients see it: renamed, with where it comes from in `_meta`. */
  listed(entry: ToolEntry): Tool {
    return {
      ...entry.tool,
      name: entry.exposed,
      _meta: { ...entry.tool._meta, [ORIGIN_META.server]: entry.server, [ORIGIN_META.name]: entry.tool.name },
    };
  }

  prompts(): PromptEntry[] {
    return [...this.promptsByName.values()];
  }

  prompt(exposed: string): PromptEntry | undefined {
    return this.promptsByName.get(exposed);
  }

  resources(): Resource[] {
    return this.resourceList;
  }

  resourceTemplates(): ResourceTemplate[] {
    return this.templates.map((entry) => entry.template);
  }

  /**
   * Which server reads `uri`: the first (in config order) that listed it, else the first whose
   * template's literal prefix (the part before its first `{`) starts the URI.
   */
  resourceOwner(uri: string): string | undefined {
    const direct = this.resourceOwners.get(uri);
    if (direct) return direct;
    const template = this.templates.find(({ template }) =>
      uri.startsWith(template.uriTemplate.split('{')[0] ?? ''),
    );
    return template?.server;
  }
}
