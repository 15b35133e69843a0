/**
 * Whether what belongs to `workspace` is for someone limited to `workspaces` (all when undefined):
 * only theirs; what belongs to no workspace is not.
 */
export function withinWorkspaces(
  workspaces: readonly string[] | undefined,
  workspace: string | undefined,
): boolean {
  if (!workspaces) return true;
  return workspace !== undefined && workspaces.includes(workspace);
}
