import type { Repository } from './repository.js';
import { headCommit } from './revisions.js';

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
    await repository.git({ args: ['add', '--', ...paths] });
    return;
  }
  if (await headCommit(repository)) {
    await repository.git({ args: ['restore', '--staged', '--', ...paths] });
  } else {
    await repository.git({ args: ['rm', '--cached', '-r', '--quiet', '--ignore-unmatch', '--', ...paths] });
  }
}
