import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { packageRootOf } from './program-folders.js';

/** toolmesh's own state and tokens live here; no sandbox ever sees it. */
export const AGGREGATOR_DATA_SUBFOLDER = 'aggregator';

function packageName(file: string): string | undefined {
  try {
    const packageRoot = packageRootOf(realpathSync(file));
    if (!packageRoot) return undefined;
    const manifest = path.join(packageRoot, 'package.json');
    const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown };
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The one folder of the data directory a first-party server may write: `<data>/<server>/`,
 * where `@toolmesh/server-<server>` keeps its databases (fs: `<data>/fs/checkpoints.sqlite`);
 * one for each server a server host runs. None for any other program, which gets no part of
 * the data directory.
 */
export function serverDataFolders(programFiles: readonly string[], dataDirectory: string): string[] {
  const folders = new Set<string>();
  for (const file of programFiles) {
    const server = /^@toolmesh\/server-([a-z0-9-]+)$/.exec(packageName(file) ?? '')?.[1];
    if (server && server !== AGGREGATOR_DATA_SUBFOLDER) folders.add(path.join(dataDirectory, server));
  }
  return [...folders];
}
