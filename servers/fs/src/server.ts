import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import {
  createLogger,
  createToolServer,
  DEFAULT_DENY,
  type DenyRules,
  type Logger,
  packageVersion,
  serverDataFile,
  type ToolServer,
} from '@toolmesh/core';
import type { CheckpointStore } from './files/checkpoints.js';
import type { FsEngine } from './files/engine.js';
import { RootSet } from './files/roots.js';
import { FS_TOOLS } from './tools/index.js';

export const FS_SERVER_NAME = 'toolmesh-fs';
export const FS_SUMMARY = 'MCP filesystem server confined to its roots.';
export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024;

export interface FsServerOptions {
  /** Folders the server may use; empty means: follow the client's MCP roots. */
  roots: readonly string[];
  checkpoints: CheckpointStore;
  /** Register only the reading tools. */
  readOnly?: boolean;
  deny?: DenyRules;
  maxFileBytes?: number;
  log?: Logger;
}

export function defaultCheckpointFile(): string {
  return serverDataFile('fs', 'checkpoints.sqlite');
}

/** What docs/servers/fs.md is generated from. */
export const toolReference = {
  name: '@toolmesh/server-fs',
  summary: `${FS_SUMMARY} Every path is resolved inside the roots given by --root (or, without them, the client's MCP roots); symlinks that lead out, .. traversal, look-alike characters and secret files (.env*, private keys, key stores, credentials files such as .netrc) are refused with the rule that refused them. Reading tools carry the action class read; writing tools worktreeWrite.`,
  tools: FS_TOOLS,
};

export function fsTools(readOnly = false) {
  return readOnly ? FS_TOOLS.filter((tool) => tool.capability === 'read') : FS_TOOLS;
}

/** One MCP server (one client session) over the fs tools. No I/O happens until a tool runs. */
export function createFsServer(options: FsServerOptions): ToolServer {
  const log = options.log ?? createLogger({ scope: FS_SERVER_NAME });
  const deny = options.deny ?? DEFAULT_DENY;
  const roots = new RootSet(options.roots, deny);
  const engine: FsEngine = {
    roots,
    checkpoints: options.checkpoints,
    deny,
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
  };
  const server = createToolServer({
    name: FS_SERVER_NAME,
    version: packageVersion(import.meta.url),
    title: 'toolmesh fs',
    instructions:
      'Files inside the configured roots. Paths are relative to the first root or absolute. Read with read_file (keep its sha256 for apply_patch expectedSha256), find with search_files and search_text, edit with apply_patch.',
    tools: fsTools(options.readOnly),
    engine,
    log,
  });

  const followClientRoots = () => {
    roots.track(
      server
        .listRoots()
        .then(({ roots: offered }) => roots.offer(offered.map((root) => root.uri)))
        .catch((error: Error) => {
          // A proxy in front may have no client with roots yet; the configured roots stand.
          const quiet = error instanceof ProtocolError && error.code === ProtocolErrorCode.MethodNotFound;
          log[quiet ? 'debug' : 'warning'](`could not read the client's roots: ${error.message}`);
        }),
    );
  };
  // Only a 2025 session initializes and has roots to follow: the 2026-07-28 revision deprecates them.
  server.oninitialized = () => {
    if (server.getClientCapabilities()?.roots) followClientRoots();
  };
  server.setNotificationHandler('notifications/roots/list_changed', async () => followClientRoots());
  return server;
}

export { CheckpointStore } from './files/checkpoints.js';
export { FS_TOOLS } from './tools/index.js';
