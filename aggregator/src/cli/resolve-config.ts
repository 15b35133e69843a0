import { existsSync } from 'node:fs';
import path from 'node:path';
import { installedFirstPartyServers } from '../config/first-party.js';
import { type LoadedConfig, loadConfigFile, parseConfig } from '../config/load.js';

export const DEFAULT_CONFIG_FILE = 'toolmesh.json';

/**
 * The config to run: the file named by --config, else ./toolmesh.json, else every installed
 * first-party server, in shared processes. `root` is the folder of the one workspace of a config
 * that names none; `shareProcesses` is `serve --processes`, over either.
 */
export function resolveConfig(options: {
  config?: string;
  root: string;
  shareProcesses?: boolean;
}): LoadedConfig {
  const file = options.config ?? (existsSync(DEFAULT_CONFIG_FILE) ? DEFAULT_CONFIG_FILE : undefined);
  const defaultRoot = path.resolve(options.root);
  const shared = options.shareProcesses !== undefined ? { shareProcesses: options.shareProcesses } : {};
  if (file) return loadConfigFile(path.resolve(file), { defaultRoot, ...shared });
  // Shared processes by default here, where every server is first-party: it is what brings the
  // README's main command near its memory target (docs/benchmarks.md, Memory at rest).
  return parseConfig(
    { mcpServers: Object.fromEntries(installedFirstPartyServers()), shareProcesses: true },
    { defaultRoot, ...shared },
  );
}
