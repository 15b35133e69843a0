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
 * server itself reads them, relative to its cwd), else the roots of the workspaces it serves.
 */
export function withSandboxRoots(
  config: StdioServerConfig,
  workspaceRoots: readonly string[],
): StdioServerConfig {
  if (config.sandbox === 'off' || config.roots !== undefined) return config;
  const fromArgs = rootArguments(config.args);
  const cwd = config.cwd ?? process.cwd();
  const roots = fromArgs.length > 0 ? fromArgs.map((root) => path.resolve(cwd, root)) : workspaceRoots;
  return { ...config, roots: [...new Set(roots)] };
}
