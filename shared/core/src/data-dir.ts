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
