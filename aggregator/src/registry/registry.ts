import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Upstream } from '../upstream/upstream.js';
import { instanceOf } from '../workspaces/instances.js';
import { assignNames, heldNameKey, type NameCollision, OWN_TOOL_NAMES } from './naming.js';

/** `_meta` keys that tell a client (and toolmesh's CLI) where an exposed tool comes from. */
export const ORIGIN_META = { server: 'toolmesh/server', name: 'toolmesh/name' } as const;

export interface ToolEntry {
  exposed: string;
  /** The configured server name, which the policy, the index and clients see. */
  server: string;
  tool: Tool;
  /** For a per-workspace server: the upstream that serves each workspace. */
  instances?: ReadonlyMap<string, string>;
}

/** One server as the registry lists it, and the upstream its catalogue is read from. */
interface ListedServer {
  server: string;
  upstream: Upstream;
  instances?: Map<string, string>;
}

/**
 * The instances of a per-workspace server run the same program, so they are one server whose
 * catalogue is read from an instance that is up; the others stay reachable by workspace.
 */
function listedServers(upstreams: readonly Upstream[]): ListedServer[] {
  const listed: ListedServer[] = [];
  const perWorkspace = new Map<string, ListedServer>();
  for (const upstream of upstreams) {
    const { server, workspace } = instanceOf(upstream.name);
    if (workspace === undefined) {
      listed.push({ server, upstream });
      continue;
    }
    const known = perWorkspace.get(server);
    if (!known) {
      const entry = { server, upstream, instances: new Map([[workspace, upstream.name]]) };
      perWorkspace.set(server, entry);
      listed.push(entry);
      continue;
    }
    known.instances?.set(workspace, upstream.name);
    if (known.upstream.state !== 'ready' && upstream.state === 'ready') known.upstream = upstream;
  }
  return listed;
}

export interface PromptEntry {
  exposed: string;
  server: string;
  /** The upstream that answers for it (an instance, for a per-workspace server). */
  upstream: string;
  prompt: Prompt;
}

export interface RegistryChange {
  added: ToolEntry[];
  removed: string[];
  /** Tools whose definition changed under the same name. */
  updated: ToolEntry[];
  /** Whether the prompt list clients see changed. */
  promptsChanged: boolean;
  /** Whether the resource list or the resource template list clients see changed. */
  resourcesChanged: boolean;
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

  /** Rebuilds from the upstreams (in config order) and says what changed in the lists clients see. */
  rebuild(upstreams: readonly Upstream[]): RegistryChange {
    const before = this.listsSeen();
    const ownName = (upstream: Upstream) => upstream.config.prefix === false;
    const servers = listedServers(upstreams);
    const tools = servers.flatMap(({ server, upstream, instances }) =>
      upstream.catalog.tools.map((tool) => ({
        server,
        name: tool.name,
        ownName: ownName(upstream),
        tool,
        instances,
      })),
    );
    // Names already handed out stay with their tools, whichever server comes up late.
    const heldTools = new Map(
      [...this.toolsByName.values()].map(({ exposed, server, tool }) => [
        heldNameKey({ server, name: tool.name }),
        exposed,
      ]),
    );
    const namedTools = assignNames(tools, this.maxNameLength, Object.values(OWN_TOOL_NAMES), heldTools);
    const next = new Map<string, ToolEntry>();
    for (const [exposed, item] of namedTools.named)
      next.set(exposed, {
        exposed,
        server: item.server,
        tool: item.tool,
        ...(item.instances && { instances: item.instances }),
      });

    const prompts = servers.flatMap(({ server, upstream }) =>
      upstream.catalog.prompts.map((prompt) => ({
        server,
        upstream: upstream.name,
        name: prompt.name,
        ownName: ownName(upstream),
        prompt,
      })),
    );
    const heldPrompts = new Map(
      [...this.promptsByName.values()].map(({ exposed, server, prompt }) => [
        heldNameKey({ server, name: prompt.name }),
        exposed,
      ]),
    );
    const namedPrompts = assignNames(prompts, this.maxNameLength, [], heldPrompts);
    this.promptsByName = new Map(
      [...namedPrompts.named].map(([exposed, item]) => [
        exposed,
        { exposed, server: item.server, upstream: item.upstream, prompt: item.prompt },
      ]),
    );
    this.collisions = [...namedTools.collisions, ...namedPrompts.collisions];

    this.resourceOwners = new Map();
    this.resourceList = [];
    this.uriConflicts = [];
    for (const { upstream } of servers) {
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
    this.templates = servers.flatMap(({ upstream }) =>
      upstream.catalog.resourceTemplates.map((template) => ({ server: upstream.name, template })),
    );

    const after = this.listsSeen();
    const change: RegistryChange = {
      added: [],
      removed: [],
      updated: [],
      promptsChanged: after.prompts !== before.prompts,
      resourcesChanged: after.resources !== before.resources,
    };
    for (const [exposed, entry] of next) {
      const before = this.toolsByName.get(exposed);
      if (!before) change.added.push(entry);
      else if (
        before.server !== entry.server ||
        // The same object is the same tool: only a server's new catalogue needs comparing.
        (before.tool !== entry.tool && fingerprint(before.tool) !== fingerprint(entry.tool))
      ) {
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

  /** The prompt list and the resource lists as clients see them, serialized to compare. */
  private listsSeen(): { prompts: string; resources: string } {
    return {
      prompts: JSON.stringify(this.listedPrompts()),
      resources: JSON.stringify([this.resources(), this.resourceTemplates()]),
    };
  }

  /** The prompts as clients see them: under their exposed names. */
  listedPrompts(): Prompt[] {
    return [...this.promptsByName.values()].map((entry) => ({ ...entry.prompt, name: entry.exposed }));
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
