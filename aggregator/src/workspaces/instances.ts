import { isStdioServer, type ServerConfig, type StdioServerConfig } from '../config/schema.js';
import { withSandboxRoots } from './sandbox-roots.js';
import { servesWorkspace, type Workspace } from './workspace.js';

/** `@` cannot occur in a configured server name, so it marks a per-workspace instance: `fs@web`. */
const INSTANCE_SEPARATOR = '@';

export function instanceName(server: string, workspace: string): string {
  return `${server}${INSTANCE_SEPARATOR}${workspace}`;
}

/** The configured server an upstream runs, and the workspace when it is one of its instances. */
export function instanceOf(upstream: string): { server: string; workspace?: string } {
  const at = upstream.indexOf(INSTANCE_SEPARATOR);
  if (at < 0) return { server: upstream };
  return { server: upstream.slice(0, at), workspace: upstream.slice(at + 1) };
}

function withRoots(config: StdioServerConfig, roots: readonly string[]): StdioServerConfig {
  return { ...config, args: [...config.args, ...roots.flatMap((root) => ['--root', root])] };
}

/**
 * The upstreams to run: a server marked `perWorkspace` becomes one instance per workspace it
 * serves, each given that workspace's roots; every other server runs once, shared. A sandboxed
 * one gets the folders its sandbox shows spelled out in `roots`.
 */
export function upstreamConfigs(
  servers: ReadonlyMap<string, ServerConfig>,
  workspaces: readonly Workspace[],
): Map<string, ServerConfig> {
  const upstreams = new Map<string, ServerConfig>();
  for (const [name, config] of servers) {
    if (!isStdioServer(config)) {
      upstreams.set(name, config);
      continue;
    }
    if (!config.perWorkspace) {
      upstreams.set(name, withSandboxRoots(config));
      continue;
    }
    for (const workspace of workspaces.filter((served) => servesWorkspace(served, name))) {
      upstreams.set(instanceName(name, workspace.id), withSandboxRoots(withRoots(config, workspace.roots)));
    }
  }
  return upstreams;
}
