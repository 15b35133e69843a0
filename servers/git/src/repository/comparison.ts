import { ToolError } from '@toolmesh/core';
import type { Side } from './blobs.js';
import type { Repository } from './repository.js';
import { emptyTree, headCommit, resolveCommit } from './revisions.js';

/** What a diff compares: old side first. Commits are full hashes, verified by git. */
export type Comparison =
  | { kind: 'worktree-index' }
  | { kind: 'index-commit'; commit: string; label: string }
  | { kind: 'worktree-commit'; commit: string; label: string }
  | { kind: 'commits'; from: string; to: string; fromLabel: string; toLabel: string };

export interface ComparisonRequest {
  from?: string | undefined;
  to?: string | undefined;
  staged?: boolean | undefined;
}

/**
 * No revision: work tree vs index. `staged`: index vs HEAD (or vs `from`). `from` alone: work
 * tree vs that commit. `from` and `to`: the two commits.
 */
export async function resolveComparison(
  repository: Repository,
  request: ComparisonRequest,
): Promise<Comparison> {
  const { from, to, staged } = request;
  if (to !== undefined && from === undefined) {
    throw new ToolError('`to` needs `from`: pass both revisions to compare two commits.', 'bad_arguments');
  }
  if (from !== undefined && to !== undefined) {
    if (staged) {
      throw new ToolError(
        '`staged` compares the index; leave it out when comparing two revisions.',
        'bad_arguments',
      );
    }
    return {
      kind: 'commits',
      from: await resolveCommit(repository, from, 'from'),
      to: await resolveCommit(repository, to, 'to'),
      fromLabel: from,
      toLabel: to,
    };
  }
  if (staged) {
    if (from !== undefined) {
      return { kind: 'index-commit', commit: await resolveCommit(repository, from, 'from'), label: from };
    }
    const head = await headCommit(repository);
    // Before the first commit the index is compared with nothing at all.
    return head
      ? { kind: 'index-commit', commit: head, label: 'HEAD' }
      : { kind: 'index-commit', commit: await emptyTree(repository), label: 'the empty tree' };
  }
  if (from !== undefined) {
    return { kind: 'worktree-commit', commit: await resolveCommit(repository, from, 'from'), label: from };
  }
  return { kind: 'worktree-index' };
}

/** The options and the (hash) operands that select the comparison in `git diff`. */
export function comparisonArguments(comparison: Comparison): { options: string[]; revisions: string[] } {
  switch (comparison.kind) {
    case 'worktree-index':
      return { options: [], revisions: [] };
    case 'index-commit':
      return { options: ['--cached'], revisions: [comparison.commit] };
    case 'worktree-commit':
      return { options: [], revisions: [comparison.commit] };
    case 'commits':
      return { options: [], revisions: [comparison.from, comparison.to] };
  }
}

const short = (hash: string) => hash.slice(0, 12);

export function describeComparison(comparison: Comparison): string {
  switch (comparison.kind) {
    case 'worktree-index':
      return 'working tree vs index';
    case 'index-commit':
      return `index vs ${comparison.label} (${short(comparison.commit)})`;
    case 'worktree-commit':
      return `working tree vs ${comparison.label} (${short(comparison.commit)})`;
    case 'commits':
      return `${comparison.fromLabel} (${short(comparison.from)}) vs ${comparison.toLabel} (${short(comparison.to)})`;
  }
}

/** Where the old and the new content of a compared file are read from. */
export function sidesOf(comparison: Comparison): { old: Side; new: Side } {
  switch (comparison.kind) {
    case 'worktree-index':
      return { old: { kind: 'index' }, new: { kind: 'worktree' } };
    case 'index-commit':
      return { old: { kind: 'commit', commit: comparison.commit }, new: { kind: 'index' } };
    case 'worktree-commit':
      return { old: { kind: 'commit', commit: comparison.commit }, new: { kind: 'worktree' } };
    case 'commits':
      return {
        old: { kind: 'commit', commit: comparison.from },
        new: { kind: 'commit', commit: comparison.to },
      };
  }
}

/**
 * `git diff` with what every diff here needs: no external diff, no textconv, no colour, and no
 * look inside a submodule (its own config may name filters; given here, this also beats a
 * `submodule.<name>.ignore` that .gitmodules sets).
 */
export function diffCommand(
  comparison: Comparison,
  format: readonly string[],
  paths: readonly string[],
): string[] {
  const { options, revisions } = comparisonArguments(comparison);
  return [
    'diff',
    '--no-ext-diff',
    '--no-textconv',
    '--no-color',
    '--ignore-submodules=dirty',
    ...options,
    ...format,
    '--end-of-options',
    ...revisions,
    '--',
    ...paths,
  ];
}
