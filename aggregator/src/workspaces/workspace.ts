import path from 'node:path';

/** A named set of roots, and the servers that serve it. */
export interface Workspace {
  id: string;
  name: string;
  roots: string[];
  /** Server names (as configured); undefined: every server. */
  servers?: string[];
}

export const DEFAULT_WORKSPACE_ID = 'default';

/** The one workspace of a config that names none: the folder toolmesh runs in. */
export function defaultWorkspace(root: string): Workspace {
  const resolved = path.resolve(root);
  return { id: DEFAULT_WORKSPACE_ID, name: path.basename(resolved) || resolved, roots: [resolved] };
}

export function servesWorkspace(workspace: Workspace, server: string): boolean {
  return workspace.servers === undefined || workspace.servers.includes(server);
}
