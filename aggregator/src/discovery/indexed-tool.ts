import type { ToolEntry } from '../registry/registry.js';

/** What the discovery index needs to know of one tool in the registry. */
export interface IndexedTool {
  /** The exposed name, unique in the registry, e.g. `github__create_issue`. */
  name: string;
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  title?: string;
  description?: string;
  inputSchema?: object;
  /** The tool's MCP annotations; `readOnlyHint` tells a reading tool from a changing one. */
  annotations?: { readOnlyHint?: boolean };
}

/** A registry entry as the index reads it. */
export function indexedTool(entry: ToolEntry): IndexedTool {
  return {
    name: entry.exposed,
    server: entry.server,
    tool: entry.tool.name,
    ...(entry.tool.title && { title: entry.tool.title }),
    ...(entry.tool.description && { description: entry.tool.description }),
    inputSchema: entry.tool.inputSchema,
    ...(entry.tool.annotations && { annotations: entry.tool.annotations }),
  };
}
