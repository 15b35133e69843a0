import path from 'node:path';
import type { StdioServerConfig } from '../config/schema.js';

/** The values of every `--root DIR` / `--root=DIR` in a command line. */
export function rootArguments(args: readonly string[]): string[] {
  const roots: string[] = [];
  args.forEach((arg, index) => {
    if (arg === '--root' && args[index + 1] !== undefined) roots.push(args[index + 1] as string);
    else if (arg.startsWith('--root=')) roots.push(arg.slice('--root='.length));
  });
  return roots;
}

/**
 * A sandboxed server's `roots` made explicit: as configured, else its `--root` arguments (as the
 * server itself reads them, relative to its cwd; a per-workspace instance has its workspace's),
 * else none. A shared server (memory, tickets, a third-party entry) is not shown the workspaces'
 * folders just because it serves them: its entry names the ones it needs.
 */
export function withSandboxRoots(config: StdioServerConfig): StdioServerConfig {
  if (config.sandbox === 'off' || config.roots !== undefined) return config;
  const cwd = config.cwd ?? process.cwd();
  const roots = rootArguments(config.args).map((root) => path.resolve(cwd, root));
  return { ...config, roots: [...new Set(roots)] };
}
