import { secretFileKind, ToolError } from '@toolmesh/core';
import type { Repository } from './repository.js';
import { headCommit } from './revisions.js';

/**
 * The untracked files `git add` would bring into the index for these paths (ignored ones stay
 * out, as `add` leaves them out), NUL-separated so that no name is quoted or split.
 */
async function untrackedFilesUnder(repository: Repository, paths: readonly string[]): Promise<string[]> {
  const listed = await repository.output([
    'ls-files',
    '--others',
    '--exclude-standard',
    '-z',
    '--',
    ...paths,
  ]);
  return listed.split('\0').filter((file) => file !== '');
}

/**
 * Staging is where an untracked secret would first become visible to a model (git_diff shows the
 * index), so a file that is a secret by its name is refused here, before anything is staged.
 */
async function refuseSecretFiles(repository: Repository, paths: readonly string[]): Promise<void> {
  const secrets = (await untrackedFilesUnder(repository, paths)).flatMap((file) => {
    const kind = secretFileKind(file);
    return kind ? [`- ${file}: ${kind}`] : [];
  });
  if (secrets.length === 0) return;
  throw new ToolError(
    [
      'Stage refused: these untracked files are secrets by their name, and toolmesh never stages one (nothing was staged):',
      ...secrets,
      'Add them to .gitignore, or stage the other paths by name.',
    ].join('\n'),
    'secret_detected',
  );
}

/**
 * Stages (`git add`, removals included) or unstages (`git restore --staged`; before the first
 * commit `git rm --cached`, which keeps the files) the given literal paths, which the caller has
 * already confined to the repository. `add` and `restore` take no --end-of-options, so the paths
 * only ever follow `--`.
 */
export async function changeStaging(
  repository: Repository,
  action: 'stage' | 'unstage',
  paths: readonly string[],
): Promise<void> {
  if (action === 'stage') {
    await refuseSecretFiles(repository, paths);
    await repository.git({ args: ['add', '--', ...paths] });
    return;
  }
  if (await headCommit(repository)) {
    await repository.git({ args: ['restore', '--staged', '--', ...paths] });
  } else {
    await repository.git({ args: ['rm', '--cached', '-r', '--quiet', '--ignore-unmatch', '--', ...paths] });
  }
}
