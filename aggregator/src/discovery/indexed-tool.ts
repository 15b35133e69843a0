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
