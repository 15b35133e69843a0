import { rawResult, ToolError } from '@toolmesh/core';
import { z } from 'zod';
import { parseToolQuery } from '../discovery/query-syntax.js';
import { OWN_TOOL_NAMES } from '../registry/naming.js';
import type { ToolEntry } from '../registry/registry.js';
import { forwardToolCall } from '../session-server/forward.js';
import { instanceOf } from '../workspaces/instances.js';
import { defineTool } from './define.js';
import { searchAdvice } from './search-advice.js';
import { stillStarting, unknownToolMessage } from './unknown-tool-message.js';

const READS_REGISTRY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/** The most hits one search returns with their input schemas. */
export const SEARCH_LIMIT_MAX = 25;
/** How deep a search lists: past `limit`, the hits come as a name and one line, without schema. */
export const SEARCH_DEPTH = 15;

/** A tool's one line: its description's first sentence, else its title. */
function oneLine(entry: ToolEntry): string {
  return (entry.tool.description ?? entry.tool.title ?? '').split(/(?<=\.)\s|\n/)[0]?.slice(0, 160) ?? '';
}

export const searchToolBm25 = defineTool({
  name: OWN_TOOL_NAMES.search,
  title: 'Search the tool registry',
  description:
    'Finds tools in the registry of every connected MCP server. Write a keyword-rich query naming the service, the action and the object, e.g. "github create pull request" or "slack post message channel"; prefix "server:<name>" to search one server. Returns the best `limit` hits with their input schemas, so they can be called right away with call_tool, then more candidates up to rank 15 as a name and one line (search for one by name to get its schema). When the match is weak it says so, with the words no tool uses: search again in the words a tool would use.',
  capability: 'discovery',
  input: z.object({
    query: z
      .string()
      .min(1)
      .describe('Keywords: service, verb, object. A long query is read in its first words only.'),
    limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).default(5),
  }),
  output: z.object({
    results: z.array(
      z.object({
        name: z.string(),
        server: z.string(),
        title: z.string().optional(),
        description: z.string().optional(),
        inputSchema: z.record(z.string(), z.unknown()),
        score: z.number(),
        callable: z.boolean().describe("Whether this session can call it now, under the session's mode."),
        reason: z.string().optional().describe('Why it cannot be called now.'),
        approval: z.string().optional().describe('Why a call will first ask a person to approve it.'),
      }),
    ),
    more: z
      .array(z.object({ name: z.string(), server: z.string(), summary: z.string() }))
      .optional()
      .describe('The next candidates, up to rank 15, without their schemas.'),
    advice: z
      .string()
      .optional()
      .describe(
        'How to search better: said when the match is weak, or the query was too long to read whole.',
      ),
    starting: z
      .array(z.string())
      .optional()
      .describe('Servers still starting: their tools are not searchable yet and join once they are ready.'),
  }),
  annotations: READS_REGISTRY,
  actions: ['read'],
  render: (output) => {
    const hits =
      output.results.length === 0
        ? 'No tool matched.'
        : output.results
            .map(
              (hit) =>
                `${hit.name} (${hit.server}, score ${hit.score.toFixed(2)}${hit.callable ? '' : `, not callable: ${hit.reason}`}${hit.approval ? `, needs approval: ${hit.approval}` : ''})\n  ${hit.description ?? ''}`,
            )
            .join('\n');
    const more = output.more?.length
      ? `\nMore candidates:\n${output.more.map((hit) => `${hit.name} (${hit.server}) — ${hit.summary}`).join('\n')}`
      : '';
    const advice = output.advice ? `\n${output.advice}` : '';
    const starting = output.starting ? `\n${stillStarting(output.starting)}` : '';
    return `${hits}${more}${advice}${starting}`;
  },
  async handle({ query, limit }, { engine }) {
    const { backend, session } = engine;
    const depth = Math.max(limit, SEARCH_DEPTH);
    const found = backend.index.find(query, depth);
    const embeddings = backend.embeddings.stage;
    const { text } = parseToolQuery(found.read);
    const fused =
      embeddings && text !== ''
        ? await embeddings.fuse(text, found.hits, depth, backend.index.accepts(found.read))
        : undefined;
    if (fused) found.hits = fused.hits;
    backend.learning.searched(
      session.id,
      found.terms,
      found.hits.map((hit) => hit.name),
    );
    const more = found.hits.slice(limit).flatMap((hit) => {
      const entry = backend.registry.tool(hit.name);
      return entry ? [{ name: entry.exposed, server: entry.server, summary: oneLine(entry) }] : [];
    });
    const results = found.hits.slice(0, limit).flatMap((hit) => {
      const entry = backend.registry.tool(hit.name);
      if (!entry) return [];
      const { callable, reason, approval } = backend.callability(session, entry);
      return [
        {
          name: entry.exposed,
          server: entry.server,
          ...(entry.tool.title && { title: entry.tool.title }),
          ...(entry.tool.description && { description: entry.tool.description }),
          inputSchema: backend.listedTool(session, entry).inputSchema,
          score: hit.score,
          callable,
          ...(reason && { reason }),
          ...(approval && { approval }),
        },
      ];
    });
    const starting = backend.startingServers();
    const advice = searchAdvice(found, fused?.problem, () => [
      ...new Set(backend.registry.tools().map((entry) => entry.server)),
    ]);
    return {
      results,
      ...(more.length > 0 && { more }),
      ...(advice && { advice }),
      ...(starting.length > 0 && { starting }),
    };
  },
});

export const listMyTools = defineTool({
  name: OWN_TOOL_NAMES.list,
  title: 'List callable tools',
  description:
    'A compact list of the tools this session can call now (its mode allows them and their server is up), grouped by server: name, title and one line each. Use search_tool_bm25 to get a tool with its input schema.',
  capability: 'discovery',
  input: z.object({ server: z.string().optional().describe('Only this server.') }),
  output: z.object({
    servers: z.array(
      z.object({
        server: z.string(),
        tools: z.array(
          z.object({
            name: z.string(),
            title: z.string().optional(),
            summary: z.string(),
            approval: z.string().optional().describe('Why a call will first ask a person to approve it.'),
          }),
        ),
      }),
    ),
  }),
  annotations: READS_REGISTRY,
  actions: ['read'],
  render: (output) =>
    output.servers
      .map((group) =>
        [
          `${group.server}:`,
          ...group.tools.map(
            (tool) => `  ${tool.name} — ${tool.summary}${tool.approval ? ' (needs approval)' : ''}`,
          ),
        ].join('\n'),
      )
      .join('\n') || 'No tool is callable now.',
  async handle({ server }, { engine }) {
    const { backend, session } = engine;
    // Tools are grouped by configured server, which may run as one instance per workspace.
    const servers = [...new Set(backend.upstreams.list().map(({ name }) => instanceOf(name).server))];
    if (server !== undefined && !servers.includes(server)) {
      throw new ToolError(`No server named ${server}. Servers: ${servers.join(', ')}.`, 'not_found');
    }
    const groups = new Map<string, { name: string; title?: string; summary: string; approval?: string }[]>();
    for (const entry of backend.registry.tools()) {
      if (server !== undefined && entry.server !== server) continue;
      const { callable, approval } = backend.callability(session, entry);
      if (!callable) continue;
      const summary = oneLine(entry);
      const list = groups.get(entry.server) ?? [];
      list.push({
        name: entry.exposed,
        ...(entry.tool.title && { title: entry.tool.title }),
        summary,
        ...(approval && { approval }),
      });
      groups.set(entry.server, list);
    }
    return { servers: [...groups].map(([name, tools]) => ({ server: name, tools })) };
  },
});

export const callTool = defineTool({
  name: OWN_TOOL_NAMES.call,
  title: 'Call a tool by name',
  description:
    'Calls any tool of the registry by the name search_tool_bm25 or list_my_tools gave, with its arguments. Works whether or not the tool is in your tool list.',
  capability: 'discovery',
  input: z.object({
    name: z
      .string()
      .min(1)
      .describe('The tool name as search_tool_bm25 returned it, e.g. github__create_issue.'),
    arguments: z.record(z.string(), z.unknown()).default({}),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  // The target's own classes govern the call; this tool only routes it.
  actions: ['read'],
  async handle({ name, arguments: args }, { engine }) {
    const { backend, session, extra, audit } = engine;
    if (!backend.registry.tool(name))
      throw new ToolError(unknownToolMessage(backend, name, OWN_TOOL_NAMES.search), 'not_found');
    try {
      return rawResult(await forwardToolCall(backend, session, name, args, extra, audit));
    } catch (error) {
      throw new ToolError(`${name} refused the call: ${(error as Error).message}`, 'refused');
    }
  },
});

export const DISCOVERY_TOOLS = [searchToolBm25, listMyTools, callTool];
