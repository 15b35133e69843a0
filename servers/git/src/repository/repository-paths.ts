import { PathGuard, PathRefusal } from '@toolmesh/core';
import type { Repository } from './repository.js';

/** Paths read need no deny rules (git shows only what it tracks); writes never reach into .git. */
const DENY = { read: [], write: ['.git', '.git/**', '**/.git', '**/.git/**'] };

/**
 * Paths given to a git tool, relative to the repository's top folder (or absolute inside it),
 * as the literal pathspecs to pass after `--`. Each must resolve (symlinks included) inside the
 * repository, so `../../.kube/config` or a link leading out is refused before git sees it.
 */
export function repositoryPaths(
  repository: Repository,
  inputs: readonly string[],
  intent: 'read' | 'write' = 'read',
): string[] {
  const guard = new PathGuard([repository.top], DENY);
  return inputs.map((input) => {
    if (input.startsWith('-')) {
      throw new PathRefusal('leading-dash', `Path "${input}" refused: it begins with "-". Write ./${input}`);
    }
    let relative: string;
    try {
      // The final link itself is what git tracks, so it is not followed; its folders are.
      relative = guard.resolve(input, intent, { followFinalSymlink: false }).relative;
    } catch (error) {
      if (error instanceof PathRefusal && /outside-roots|traversal|symlink-escape/.test(error.rule)) {
        throw new PathRefusal(
          error.rule,
          `Path "${input}" refused: it leads outside the repository ${repository.shown}. Paths are relative to the repository's top folder`,
        );
      }
      throw error;
    }
    return relative === '' ? '.' : relative;
  });
}
