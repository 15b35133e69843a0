/** The code-graph server's program: what its bin runs, and what a server host runs beside others. */
import { dataDirectory, packageVersion, type ServerProgram, UsageError } from '@toolmesh/core';
import { PRECISE_FLAG, preciseOptions } from './cli.js';
import { CodeGraph } from './graph/code-graph.js';
import type { WatchMode } from './graph/tree-watcher.js';
import { CODE_GRAPH_SERVER_NAME, CODE_GRAPH_SUMMARY, createCodeGraphServer } from './server.js';

const WATCH_FLAG = {
  watch: {
    type: 'string',
    value: 'events|polling|off',
    description: 'follow file changes with per-folder watchers (default), by polling, or not at all',
  },
} as const;

function watchMode(value: unknown): WatchMode | false {
  if (value === undefined || value === 'events') return 'events';
  if (value === 'polling') return 'polling';
  if (value === 'off') return false;
  throw new UsageError(`--watch must be events, polling or off, not "${String(value)}"`);
}

export const program: ServerProgram = {
  name: CODE_GRAPH_SERVER_NAME,
  version: packageVersion(import.meta.url),
  summary: `${CODE_GRAPH_SUMMARY} Without --root it indexes the current folder. CLI: toolmesh-code-graph callers|callees|symbol|search|read|map|status [NAME] --root DIR.`,
  flags: { ...WATCH_FLAG, ...PRECISE_FLAG },
  setup(flags, extra, log) {
    const roots = flags.roots.length > 0 ? flags.roots : [process.cwd()];
    if (flags.roots.length === 0) log.info(`no --root given: indexing ${roots[0]}`);
    const graph = new CodeGraph({
      roots,
      dataDir: dataDirectory(),
      ...(flags.db && { databaseFile: flags.db }),
      log,
      watch: watchMode(extra.watch),
      ...preciseOptions(extra),
    });
    // In the background: the server answers at once, from whatever is indexed so far.
    void graph.start();
    return { createServer: () => createCodeGraphServer({ graph, log }), close: () => graph.close() };
  },
};
