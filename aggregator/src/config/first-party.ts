import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { dataDirectory } from '@toolmesh/core';
import type { StdioServerConfig } from './schema.js';

/** The first-party server packages, by the short name their tools are exposed under. */
export const FIRST_PARTY_SERVERS = ['fs', 'git', 'code-graph', 'tickets', 'memory', 'feeds', 'rigs'] as const;

/** The servers that work on a workspace's folders, so each workspace gets its own instance. */
const PER_WORKSPACE = new Set<string>(['fs', 'git', 'code-graph']);

/** The servers that keep workspaces apart in their own data, so one process serves every workspace. */
const WORKSPACE_SCOPED = new Set<string>(['tickets', 'memory', 'rigs']);

/** The servers that reach beyond this machine (feeds fetch, rigs drive remote machines). */
const NEEDS_NETWORK = new Set<string>(['feeds', 'rigs']);

/** The servers whose tools change files under their roots; the rest keep state in the data directory. */
const WRITES_ROOTS = new Set<string>(['fs', 'git']);

const requireHere = createRequire(import.meta.url);

/** The bin of an installed package, by absolute path, or undefined when the package is not installed. */
export function installedBin(packageName: string): string | undefined {
  let manifestPath: string;
  try {
    manifestPath = requireHere.resolve(`${packageName}/package.json`);
  } catch {
    return undefined;
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  return bin ? path.join(path.dirname(manifestPath), bin) : undefined;
}

/**
 * The servers `toolmesh serve` runs with no config: every first-party package that is installed,
 * run with this same Node; fs, git and code-graph once per workspace, on its roots; tickets and
 * memory once, told every workspace id. A user who
 * installed only some servers gets those.
 */
export function installedFirstPartyServers(): Map<string, StdioServerConfig> {
  const servers = new Map<string, StdioServerConfig>();
  for (const name of FIRST_PARTY_SERVERS) {
    const bin = installedBin(`@toolmesh/server-${name}`);
    if (!bin) continue;
    servers.set(name, {
      command: process.execPath,
      args: [bin],
      perWorkspace: PER_WORKSPACE.has(name),
      workspaceScoped: WORKSPACE_SCOPED.has(name),
      // Children get a minimal environment; the data directory must still be the aggregator's.
      env: { TOOLMESH_DATA_DIR: dataDirectory() },
      // Sandboxed where bwrap works; elsewhere run as before, with a warning in the log and doctor.
      sandbox: 'preferred',
      network: NEEDS_NETWORK.has(name),
      writableRoots: WRITES_ROOTS.has(name),
      disabled: false,
      disabledTools: [],
      prefix: true,
    });
  }
  return servers;
}
