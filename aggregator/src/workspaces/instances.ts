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

/** A `workspaceScoped` server told the workspaces it serves, as the uniform --workspace flag. */
function withWorkspaceIds(config: StdioServerConfig, served: readonly Workspace[]): StdioServerConfig {
  if (!config.workspaceScoped) return config;
  return {
    ...config,
    args: [...config.args, ...served.flatMap((workspace) => ['--workspace', workspace.id])],
  };
}

/**
 * The upstreams to run: a server marked `perWorkspace` becomes one instance per workspace it
 * serves, each given that workspace's roots; every other server runs once, shared. A server marked
 * `workspaceScoped` is told the ids of the workspaces it serves (an instance, its own), and one
 * that serves none is not run. A sandboxed one gets the folders its sandbox shows spelled out in
 * `roots`.
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
    const served = workspaces.filter((workspace) => servesWorkspace(workspace, name));
    if (!config.perWorkspace) {
      if (config.workspaceScoped && served.length === 0) continue;
      upstreams.set(name, withSandboxRoots(withWorkspaceIds(config, served)));
      continue;
    }
    for (const workspace of served) {
      const instance = withWorkspaceIds(withRoots(config, workspace.roots), [workspace]);
      upstreams.set(instanceName(name, workspace.id), withSandboxRoots(instance));
    }
  }
  return upstreams;
}
