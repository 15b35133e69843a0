import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Repository } from './repository.js';

export const CHANGES = ['added', 'modified', 'deleted', 'renamed', 'copied', 'typeChanged'] as const;
export type Change = (typeof CHANGES)[number];

const CHANGE_OF: Record<string, Change> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'typeChanged',
};

export function changeOf(letter: string): Change {
  return CHANGE_OF[letter.charAt(0)] ?? 'modified';
}

const CONFLICTS: Record<string, string> = {
  DD: 'both deleted',
  AU: 'added by us',
  UD: 'deleted by them',
  UA: 'added by them',
  DU: 'deleted by us',
  AA: 'both added',
  UU: 'both modified',
};

export type StatusArea = 'staged' | 'unstaged' | 'untracked' | 'conflicted';

export interface StatusEntry {
  area: StatusArea;
  path: string;
  change?: Change;
  oldPath?: string;
  conflict?: string;
}

export interface StatusReport {
  /** The branch checked out; null when HEAD is detached. */
  branch: string | null;
  /** The commit HEAD is at; null on a branch with no commit yet. */
  head: string | null;
  detached: boolean;
  upstream: string | null;
  ahead: number | null;
  behind: number | null;
  stashCount: number;
  entries: StatusEntry[];
}

/** Reads `git status --porcelain=v2 --branch --show-stash -z`. */
export function parseStatus(output: string): StatusReport {
  const report: StatusReport = {
    branch: null,
    head: null,
    detached: false,
    upstream: null,
    ahead: null,
    behind: null,
    stashCount: 0,
    entries: [],
  };
  const records = output.split('\0');
  for (let index = 0; index < records.length; index++) {
    const record = records[index] as string;
    if (record.startsWith('# ')) {
      const [key, ...rest] = record.slice(2).split(' ');
      const value = rest.join(' ');
      if (key === 'branch.oid') report.head = value === '(initial)' ? null : value;
      else if (key === 'branch.head') {
        report.detached = value === '(detached)';
        report.branch = report.detached ? null : value;
      } else if (key === 'branch.upstream') report.upstream = value;
      else if (key === 'branch.ab') {
        const counts = /^\+(\d+) -(\d+)$/.exec(value);
        if (counts) [report.ahead, report.behind] = [Number(counts[1]), Number(counts[2])];
      } else if (key === 'stash') report.stashCount = Number(value);
      continue;
    }
    const kind = record.charAt(0);
    if (kind === '?') report.entries.push({ area: 'untracked', path: record.slice(2) });
    else if (kind === '1' || kind === '2') {
      const fields = record.split(' ');
      const xy = fields[1] as string;
      const filePath = fields.slice(kind === '1' ? 8 : 9).join(' ');
      const oldPath = kind === '2' ? (records[++index] as string) : undefined;
      const [staged, unstaged] = [xy.charAt(0), xy.charAt(1)];
      if (staged !== '.') {
        report.entries.push({
          area: 'staged',
          path: filePath,
          change: changeOf(staged),
          ...(oldPath !== undefined && { oldPath }),
        });
      }
      if (unstaged !== '.')
        report.entries.push({ area: 'unstaged', path: filePath, change: changeOf(unstaged) });
    } else if (kind === 'u') {
      const fields = record.split(' ');
      const xy = fields[1] as string;
      report.entries.push({
        area: 'conflicted',
        path: fields.slice(10).join(' '),
        conflict: CONFLICTS[xy] ?? xy,
      });
    }
  }
  return report;
}

export const OPERATIONS = ['merge', 'rebase', 'am', 'cherry-pick', 'revert', 'bisect'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** The operation a work tree is in the middle of, from the marker files git leaves in its git folder. */
export function operationInProgress(repository: Repository): Operation | null {
  const marker = (name: string) => existsSync(path.join(repository.gitDir, name));
  if (marker('rebase-merge') || (marker('rebase-apply') && !marker('rebase-apply/applying'))) return 'rebase';
  if (marker('rebase-apply')) return 'am';
  if (marker('MERGE_HEAD')) return 'merge';
  if (marker('CHERRY_PICK_HEAD')) return 'cherry-pick';
  if (marker('REVERT_HEAD')) return 'revert';
  if (marker('BISECT_LOG')) return 'bisect';
  return null;
}

export type UntrackedMode = 'normal' | 'all' | 'no';

/** The status of the work tree, optionally of some paths only. */
export async function readStatus(
  repository: Repository,
  options: { untracked?: UntrackedMode; paths?: readonly string[]; signal?: AbortSignal } = {},
): Promise<StatusReport> {
  const output = await repository.output(
    [
      'status',
      '--porcelain=v2',
      '--branch',
      '--show-stash',
      '-z',
      `--untracked-files=${options.untracked ?? 'normal'}`,
      // A dirty submodule is not looked into: that would run git inside it, with its own config.
      '--ignore-submodules=dirty',
      ...(options.paths ? ['--', ...options.paths] : []),
    ],
    { ...(options.signal && { signal: options.signal }) },
  );
  return parseStatus(output);
}
