import { existsSync, lstatSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

export interface GitFolders {
  gitDir: string;
  commonDir: string;
}

function realOrUndefined(target: string): string | undefined {
  try {
    return realpathSync.native(target);
  } catch {
    return undefined;
  }
}

/**
 * Where a work tree's git data lives, read the way git reads it: `.git` is the folder, or a
 * file `gitdir: <path>` (linked worktrees, submodules); a `commondir` file inside points at the
 * objects and refs. Real paths, so the caller can check that they stay inside the roots.
 */
export function gitFoldersOf(top: string): GitFolders | undefined {
  const dotGit = path.join(top, '.git');
  let gitDir: string | undefined;
  try {
    const stat = lstatSync(dotGit);
    if (stat.isFile()) {
      const pointer = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
      gitDir = pointer ? realOrUndefined(path.resolve(top, pointer)) : undefined;
    } else {
      gitDir = realOrUndefined(dotGit);
    }
  } catch {
    return undefined;
  }
  if (!gitDir || !existsSync(path.join(gitDir, 'HEAD'))) return undefined;
  const commonFile = path.join(gitDir, 'commondir');
  const commonDir = existsSync(commonFile)
    ? realOrUndefined(path.resolve(gitDir, readFileSync(commonFile, 'utf8').trim()))
    : gitDir;
  return commonDir ? { gitDir, commonDir } : undefined;
}
