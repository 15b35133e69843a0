import { ToolError } from '@toolmesh/core';
import type { Repository } from './repository.js';
import { headCommit } from './revisions.js';
import { pushStash, type StashEntry } from './stash.js';
import { readStatus, type StatusEntry } from './status.js';

export interface RestoreRequest {
  paths: readonly string[];
  /** Discard staged changes too, back to HEAD; otherwise only unstaged ones, back to the index. */
  staged: boolean;
  /** Also delete untracked files under the paths. */
  includeUntracked: boolean;
}

export interface RestoreOutcome {
  discarded: StatusEntry[];
  stash: StashEntry;
}

/**
 * Discards changes to paths, recoverably: what is discarded is first saved as a stash, and the
 * stash push itself is what discards it (only for the files that had something to discard).
 * `git stash pop` (git_stash action=pop) brings it all back.
 */
export async function restorePaths(repository: Repository, request: RestoreRequest): Promise<RestoreOutcome> {
  if (!(await headCommit(repository))) {
    throw new ToolError('There is no commit yet, so there is nothing to restore to.', 'no_commit');
  }
  const status = await readStatus(repository, {
    untracked: request.includeUntracked ? 'all' : 'no',
    paths: request.paths,
  });
  const conflicted = status.entries.filter((entry) => entry.area === 'conflicted');
  if (conflicted.length > 0) {
    throw new ToolError(
      `Resolve the conflicts in ${conflicted.map((entry) => entry.path).join(', ')} first (edit, then git_stage): a stash cannot save them.`,
      'conflicted',
    );
  }
  const discarded = status.entries.filter(
    (entry) =>
      entry.area === 'unstaged' ||
      (entry.area === 'staged' && request.staged) ||
      (entry.area === 'untracked' && request.includeUntracked),
  );
  if (discarded.length === 0) {
    throw new ToolError(
      `Nothing to discard in ${request.paths.join(', ')}${request.staged ? '' : ' (staged changes are kept unless staged=true)'}${request.includeUntracked ? '' : '; untracked files are kept unless includeUntracked=true'}.`,
      'nothing_to_restore',
    );
  }
  const files = [
    ...new Set(discarded.flatMap((entry) => (entry.oldPath ? [entry.oldPath, entry.path] : [entry.path]))),
  ];
  const stash = await pushStash(repository, {
    message: `toolmesh git_restore: ${files.slice(0, 10).join(', ')}${files.length > 10 ? ', …' : ''}`,
    paths: files,
    includeUntracked: request.includeUntracked,
    keepIndex: !request.staged,
  });
  if (!stash) throw new ToolError('git stash saved nothing, so nothing was discarded.', 'nothing_to_restore');
  return { discarded, stash };
}
