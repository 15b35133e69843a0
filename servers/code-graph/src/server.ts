import { createLogger, createToolServer, type Logger, packageVersion, type ToolServer } from '@toolmesh/core';
import type { CodeGraph } from './graph/code-graph.js';
import { CODE_GRAPH_TOOLS } from './tools/index.js';

export const CODE_GRAPH_SERVER_NAME = 'toolmesh-code-graph';
export const CODE_GRAPH_SUMMARY =
  'MCP server that keeps a symbol graph of the code under its roots: definitions, callers with every callsite, callees, imports, inheritance, ranked search.';

export interface CodeGraphServerOptions {
  graph: CodeGraph;
  log?: Logger;
}

/** What docs/servers/code-graph.md is generated from. */
export const toolReference = {
  name: '@toolmesh/server-code-graph',
  summary: `${CODE_GRAPH_SUMMARY} It parses TypeScript, TSX, JavaScript, Python, Go, Rust, Java, C#, C, C++, Ruby, PHP, Bash, Elixir, Haskell, Julia, OCaml and Scala with tree-sitter (the grammars ship inside the package) (honouring .gitignore, skipping files over 1 MB), resolves calls, imports, extends, implements and type references syntactically across files, and stores one SQLite database per root in the data directory, never inside the project. The index builds in the background at start and follows file changes; every answer says when it is not complete. All tools carry the action class read.`,
  tools: CODE_GRAPH_TOOLS,
};

/** One MCP server (one client session) over a shared CodeGraph. No I/O happens here. */
export function createCodeGraphServer(options: CodeGraphServerOptions): ToolServer {
  return createToolServer({
    name: CODE_GRAPH_SERVER_NAME,
    version: packageVersion(import.meta.url),
    title: 'toolmesh code-graph',
    instructions:
      'A symbol graph of the code under the roots. Start with repo_map or search_code; code_symbol finds a definition by exact name (Class.method); code_callers and code_callees list every callsite; read_symbol reads one definition instead of a whole file; code_impact gives what a change reaches (and the tests that reach it), code_trace the call path between two symbols, HTTP client calls included where they hit a route. Answers say indexComplete: false while indexing.',
    tools: CODE_GRAPH_TOOLS,
    engine: options.graph,
    log: options.log ?? createLogger({ scope: CODE_GRAPH_SERVER_NAME }),
  });
}

export { CodeGraph, type CodeGraphOptions, databaseFileFor } from './graph/code-graph.js';
export { CHECKER_IDLE_MS } from './graph/precise/precise-upgrader.js';
export { CODE_GRAPH_TOOLS } from './tools/index.js';
