import { ToolError } from '@toolmesh/core';
import { GitFailure } from './git-process.js';
import type { Repository } from './repository.js';
import { branchExists, checkBranchName, headCommit, resolveCommit } from './revisions.js';
import { readStatus } from './status.js';

export async function currentBranch(repository: Repository): Promise<string | null> {
  return (await readStatus(repository, { untracked: 'no' })).branch;
}

/** Creates a branch at `startPoint` (default HEAD); never moves an existing one. */
export async function createBranch(
  repository: Repository,
  name: string,
  startPoint?: string,
): Promise<string> {
  await checkBranchName(repository, name);
  if (await branchExists(repository, name)) {
    throw new ToolError(`Branch ${name} already exists: switch to it with action=switch.`, 'branch_exists');
  }
  const commit = startPoint
    ? await resolveCommit(repository, startPoint, 'startPoint')
    : await headCommit(repository);
  if (!commit) {
    throw new ToolError('There is no commit yet to start a branch from: commit first.', 'no_commit');
  }
  await repository.git({ args: ['branch', '--no-track', '--end-of-options', name, commit] });
  return commit;
}

/** Checks out an existing local branch; git refuses when local changes would be overwritten. */
export async function switchBranch(repository: Repository, name: string): Promise<void> {
  await checkBranchName(repository, name);
  if (!(await branchExists(repository, name))) {
    throw new ToolError(
      `There is no local branch ${name}: create it with action=create (startPoint origin/${name} for a remote one).`,
      'not_found',
    );
  }
  await repository.git({ args: ['switch', '--no-guess', '--end-of-options', name] });
}

/** Deletes a local branch only when it is merged (`git branch -d`), and never the current one. */
export async function deleteMergedBranch(repository: Repository, name: string): Promise<string> {
  await checkBranchName(repository, name);
  if (!(await branchExists(repository, name))) {
    throw new ToolError(`There is no local branch ${name}: see git_branches.`, 'not_found');
  }
  if ((await currentBranch(repository)) === name) {
    throw new ToolError(
      `${name} is checked out: switch to another branch before deleting it.`,
      'branch_current',
    );
  }
  const commit = await resolveCommit(repository, `refs/heads/${name}`, 'branch');
  try {
    await repository.git({ args: ['branch', '--delete', '--end-of-options', name] });
  } catch (error) {
    if (error instanceof GitFailure && /not fully merged/.test(error.stderr)) {
      throw new ToolError(
        `${name} is not merged into HEAD or its upstream, so it is kept: only merged branches are deleted here.`,
        'branch_not_merged',
      );
    }
    throw error;
  }
  return commit;
}
