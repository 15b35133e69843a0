import { ToolError } from '@toolmesh/core';
import { GitFailure, literalPathspec } from './git-process.js';
import type { Repository } from './repository.js';
import { readStatus } from './status.js';

export interface StashEntry {
  index: number;
  /** `stash@{n}`. */
  ref: string;
  commit: string;
  message: string;
  date: string;
}

export async function listStashes(repository: Repository): Promise<StashEntry[]> {
  const output = await repository.output(['stash', 'list', '--format=%gd%x00%H%x00%gs%x00%cI']);
  return output
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [ref, commit, message, date] = line.split('\0') as [string, string, string, string];
      return { index: Number(/\{(\d+)\}/.exec(ref)?.[1] ?? 0), ref, commit, message, date };
    });
}

async function stashTip(repository: Repository): Promise<string | undefined> {
  const result = await repository.git({
    args: ['rev-parse', '--verify', '--quiet', 'refs/stash'],
    exitCodes: [0, 1],
  });
  return result.exitCode === 0 ? result.stdout.trim() : undefined;
}

export interface StashPush {
  message: string;
  paths?: readonly string[];
  includeUntracked?: boolean;
  /** Keep the staged changes staged, and in the work tree (discard only unstaged changes). */
  keepIndex?: boolean;
}

/** Saves changes as a new stash (paths already confined to the repository); the new entry, or undefined when nothing changed. */
export async function pushStash(repository: Repository, push: StashPush): Promise<StashEntry | undefined> {
  const before = await stashTip(repository);
  await repository.git({
    args: [
      'stash',
      'push',
      `--message=${push.message}`,
      ...(push.includeUntracked ? ['--include-untracked'] : []),
      ...(push.keepIndex ? ['--keep-index'] : []),
      ...(push.paths && push.paths.length > 0 ? ['--', ...push.paths.map(literalPathspec)] : []),
    ],
    pathspecMagic: true,
  });
  const after = await stashTip(repository);
  if (!after || after === before) return undefined;
  return (await listStashes(repository))[0];
}

/** Applies and drops `stash@{index}`; on a conflict git keeps the stash and this says where. */
export async function popStash(repository: Repository, index: number): Promise<StashEntry> {
  const entry = (await listStashes(repository)).find((stash) => stash.index === index);
  if (!entry) {
    throw new ToolError(`There is no stash@{${index}}: list the stashes with action=list.`, 'not_found');
  }
  try {
    await repository.git({ args: ['stash', 'pop', `stash@{${index}}`], pathspecMagic: true });
  } catch (error) {
    if (!(error instanceof GitFailure)) throw error;
    const conflicted = (await readStatus(repository, { untracked: 'no' })).entries.filter(
      (status) => status.area === 'conflicted',
    );
    if (conflicted.length > 0) {
      throw new ToolError(
        `Popping ${entry.ref} conflicted in ${conflicted.map((status) => status.path).join(', ')}; the stash is kept. Resolve the conflict markers in those files and stage them with git_stage.`,
        'stash_conflict',
      );
    }
    throw new ToolError(
      `${entry.ref} was not applied: ${error.stderr.trim().split('\n').slice(0, 4).join(' ')}. The stash is kept; commit or stash the changes in the way first.`,
      'stash_not_applied',
    );
  }
  return entry;
}
