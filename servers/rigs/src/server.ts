import { randomUUID } from 'node:crypto';
import {
  createLogger,
  createToolServer,
  type Logger,
  packageVersion,
  serverDataFile,
  type ToolServer,
} from '@toolmesh/core';
import type { RigsEngine } from './rigs/rigs-engine.js';
import { RIG_TOOLS } from './tools/index.js';

export const RIGS_SERVER_NAME = 'toolmesh-rigs';
export const RIGS_SUMMARY =
  'MCP server of disposable machines: a headless Chromium in a throwaway profile behind an allowlisting egress proxy and a Linux desktop on Xvfb, reused per conversation and closed when idle; Android and iOS answer honestly what they need.';

export interface RigsServerOptions {
  rigs: RigsEngine;
  /** The workspace ids served (default ["default"]); each has its own rigs. */
  workspaces?: readonly string[];
  identity?: string;
  log?: Logger;
}

/** Where rigs keep their throwaway folders when no data directory is given. */
export function defaultRigsDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return serverDataFile('rigs', '', env);
}

/** What docs/servers/rigs.md is generated from. */
export const toolReference = {
  name: '@toolmesh/server-rigs',
  summary: `${RIGS_SUMMARY} Every tool is workspace-scoped. Repeated calls in one conversation (the aggregator's \`toolmesh/conversation\`, else the MCP session) reuse one rig per surface and engine; rigs are capped per workspace (least recently used closed first) and closed after an idle time. Each rig is a process group under a parent-death signal with its own folder under the data directory, deleted when it closes; a server starting up sweeps what a crashed one left. Whether a surface can start is probed on every call (cached about 30 s, starting nothing); a missing piece is an error naming what to install. The use tools carry enclosureControl, networkEgress and processSpawn (mobile and iOS also packageInstall), so read-only modes refuse them; rig_list only reads. The enclosure is a process group with a throwaway profile and an egress proxy, not a virtual machine.`,
  tools: RIG_TOOLS,
};

/** One MCP server (one client session) over the server's rigs. */
export function createRigsServer(options: RigsServerOptions): ToolServer {
  const log = options.log ?? createLogger({ scope: RIGS_SERVER_NAME });
  return createToolServer({
    name: RIGS_SERVER_NAME,
    version: packageVersion(import.meta.url),
    title: 'toolmesh rigs',
    instructions:
      'Disposable machines. browser_use drives a headless browser: navigate, then snapshot for refs (e5), then click, fill or select by ref; take a new snapshot after the page changes. computer_use drives a Linux desktop in screenshot coordinates. rig_list shows the rigs and what can start here; rig_close throws one away.',
    tools: RIG_TOOLS,
    engine: { rigs: options.rigs, session: randomUUID() },
    log,
    scope: {
      workspaces: options.workspaces ?? ['default'],
      ...(options.identity !== undefined && { identity: options.identity }),
    },
  });
}

export { RigsEngine, type RigsEngineOptions } from './rigs/rigs-engine.js';
export { RIG_TOOLS } from './tools/index.js';
