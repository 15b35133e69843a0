import type { Client } from '@modelcontextprotocol/client';
import type {
  Prompt,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';

/** What one downstream server offers, as toolmesh lists it for its clients. */
export interface UpstreamCatalog {
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  capabilities: ServerCapabilities;
  instructions?: string;
}

export const EMPTY_CATALOG: UpstreamCatalog = {
  tools: [],
  prompts: [],
  resources: [],
  resourceTemplates: [],
  capabilities: {},
};

/** Follows `nextCursor` until the server has sent every page of a list. */
async function listAll<K extends string, T>(
  key: K,
  fetchPage: (params: { cursor?: string }) => Promise<{ [key in K]: T[] } & { nextCursor?: string }>,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor ? { cursor } : {});
    all.push(...page[key]);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

/** Everything a connected server offers now, every page of it, without the tools its config disables. */
export async function fetchCatalog(
  client: Client,
  disabledTools: readonly string[] | undefined,
): Promise<UpstreamCatalog> {
  const capabilities = (client.getServerCapabilities() ?? {}) as ServerCapabilities;
  // Each list is fetched afresh: the catalogue is toolmesh's own cache, and list_changed refreshes it.
  const fresh = { cacheMode: 'bypass' } as const;
  const [tools, prompts, resources, resourceTemplates] = await Promise.all([
    capabilities.tools
      ? listAll<'tools', Tool>('tools', (params) => client.listTools(params, fresh) as never)
      : [],
    capabilities.prompts
      ? listAll<'prompts', Prompt>('prompts', (params) => client.listPrompts(params, fresh) as never)
      : [],
    capabilities.resources
      ? listAll<'resources', Resource>('resources', (params) => client.listResources(params, fresh) as never)
      : [],
    // Templates are optional even for servers with resources; some answer "method not found".
    capabilities.resources
      ? listAll<'resourceTemplates', ResourceTemplate>(
          'resourceTemplates',
          (params) => client.listResourceTemplates(params, fresh) as never,
        ).catch(() => [])
      : [],
  ]);
  const disabled = new Set(disabledTools);
  const instructions = client.getInstructions();
  return {
    tools: tools.filter((tool) => !disabled.has(tool.name)),
    prompts,
    resources,
    resourceTemplates,
    capabilities,
    ...(instructions && { instructions }),
  };
}
