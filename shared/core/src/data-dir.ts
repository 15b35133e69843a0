import os from 'node:os';
import path from 'node:path';

/**
 * Where toolmesh keeps its state: outside the user's projects, so no server litters a
 * repository. `TOOLMESH_DATA_DIR` wins, then `$XDG_DATA_HOME/toolmesh`, then
 * `~/.local/share/toolmesh`.
 */
export function dataDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TOOLMESH_DATA_DIR) return path.resolve(env.TOOLMESH_DATA_DIR);
  if (env.XDG_DATA_HOME) return path.join(path.resolve(env.XDG_DATA_HOME), 'toolmesh');
  return path.join(os.homedir(), '.local', 'share', 'toolmesh');
}

/**
 * Where toolmesh keeps what it can rebuild (compiled code of its bins): `TOOLMESH_CACHE_DIR`
 * wins, then `$XDG_CACHE_HOME/toolmesh`, then `~/.cache/toolmesh`. Deleting it loses nothing.
 */
export function cacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TOOLMESH_CACHE_DIR) return path.resolve(env.TOOLMESH_CACHE_DIR);
  if (env.XDG_CACHE_HOME) return path.join(path.resolve(env.XDG_CACHE_HOME), 'toolmesh');
  return path.join(os.homedir(), '.cache', 'toolmesh');
}

/**
 * A file of one server's own state: `<data>/<server>/<file>`. Under the aggregator's sandbox
 * that folder is the only part of the data directory a server is shown, so a file anywhere
 * else in it would land in the sandbox's private filesystem and be gone when the server exits.
 */
export function serverDataFile(server: string, file: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(dataDirectory(env), server, file);
}
