import { ToolError } from '@toolmesh/core';
import type { Repository } from './repository.js';

const CONTROL = /[\u0000-\u001f\u007f]/u;
const MAX_REVISION_LENGTH = 256;

/** Refuses text that could be taken for an option or that no revision contains. */
function checkRevisionText(spec: string, what: string): void {
  if (spec.length === 0)
    throw new ToolError(`${what} is empty: pass a branch, tag or commit.`, 'bad_revision');
  if (spec.length > MAX_REVISION_LENGTH) {
    throw new ToolError(`${what} is longer than ${MAX_REVISION_LENGTH} characters.`, 'bad_revision');
  }
  if (spec.startsWith('-')) {
    throw new ToolError(
      `${what} "${spec}" refused: it begins with "-", so git would read it as an option. Pass a branch, tag or commit.`,
      'bad_revision',
    );
  }
  if (CONTROL.test(spec)) {
    throw new ToolError(`${what} refused: it contains a control character.`, 'bad_revision');
  }
}

/**
 * The full hash of the commit `spec` names, verified by git. Commands are then given the hash,
 * which no git parser can take for an option or a path.
 */
export async function resolveCommit(
  repository: Repository,
  spec: string,
  what = 'revision',
): Promise<string> {
  checkRevisionText(spec, what);
  const result = await repository.git({
    args: ['rev-parse', '--verify', '--quiet', '--end-of-options', `${spec}^{commit}`],
    exitCodes: [0, 1, 128],
  });
  const hash = result.stdout.trim();
  if (result.exitCode !== 0 || !/^[0-9a-f]{40,64}$/.test(hash)) {
    throw new ToolError(
      `${what} "${spec}" does not name a commit in ${repository.shown}: list branches and tags with git_branches, commits with git_history action=log.`,
      'unknown_revision',
    );
  }
  return hash;
}

/** The hash HEAD points at, or undefined on a branch with no commit yet. */
export async function headCommit(repository: Repository): Promise<string | undefined> {
  const result = await repository.git({
    args: ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'],
    exitCodes: [0, 1, 128],
  });
  return result.exitCode === 0 ? result.stdout.trim() : undefined;
}

/** The empty tree of this repository's hash function, to compare a first commit against. */
export async function emptyTree(repository: Repository): Promise<string> {
  return (await repository.output(['hash-object', '-t', 'tree', '--stdin'], { input: '' })).trim();
}

/** Refuses a branch name git would not accept, or one that could be read as an option. */
export async function checkBranchName(repository: Repository, name: string): Promise<void> {
  checkRevisionText(name, 'branch name');
  const valid = await repository.git({
    args: ['check-ref-format', `refs/heads/${name}`],
    exitCodes: [0, 1],
  });
  if (valid.exitCode !== 0 || name === 'HEAD' || name.startsWith('@')) {
    throw new ToolError(
      `"${name}" is not a valid branch name: no spaces, "..", "~", "^", ":", "?", "*", "[", "\\", no "@{", no leading "-" or ".", no trailing "/" or ".lock".`,
      'bad_branch_name',
    );
  }
}

/** Whether a local branch of that name exists. */
export async function branchExists(repository: Repository, name: string): Promise<boolean> {
  const result = await repository.git({
    args: ['rev-parse', '--verify', '--quiet', '--end-of-options', `refs/heads/${name}`],
    exitCodes: [0, 1],
  });
  return result.exitCode === 0;
}
