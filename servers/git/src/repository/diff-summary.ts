import { type Comparison, diffCommand } from './comparison.js';
import type { Repository } from './repository.js';
import { type Change, changeOf } from './status.js';

export interface FileSummary {
  path: string;
  oldPath?: string;
  change: Change;
  /** Lines added and removed; null for a binary file. */
  added: number | null;
  removed: number | null;
  binary: boolean;
}

/**
 * Reads `--raw --numstat -z`: all raw records (status and paths), then all numstat records
 * (line counts) in the same order.
 */
export function parseRawNumstat(output: string): FileSummary[] {
  const tokens = output.split('\0');
  if (tokens.at(-1) === '') tokens.pop();
  const files: FileSummary[] = [];
  let index = 0;
  while (index < tokens.length && (tokens[index] as string).startsWith(':')) {
    const status = (tokens[index] as string).split(' ').at(-1) ?? 'M';
    const change = changeOf(status);
    const twoPaths = change === 'renamed' || change === 'copied';
    const first = tokens[index + 1] as string;
    const second = twoPaths ? (tokens[index + 2] as string) : undefined;
    files.push({
      path: second ?? first,
      ...(second !== undefined && { oldPath: first }),
      change,
      added: 0,
      removed: 0,
      binary: false,
    });
    index += twoPaths ? 3 : 2;
  }
  for (const file of files) {
    const counts = (tokens[index] as string | undefined)?.split('\t') ?? [];
    // A renamed file's numstat record leaves its path empty and gives both paths after it.
    index += counts[2] === '' ? 3 : 1;
    if (counts[0] === '-') {
      file.binary = true;
      file.added = null;
      file.removed = null;
    } else {
      file.added = Number(counts[0] ?? 0);
      file.removed = Number(counts[1] ?? 0);
    }
  }
  return files;
}

export interface DiffOptions {
  paths?: readonly string[];
  /** Detect renames (and copies are left alone). */
  renames?: boolean;
  signal?: AbortSignal;
}

export function renameOptions(options: DiffOptions): string[] {
  return options.renames === false ? ['--no-renames'] : ['-M'];
}

/** Files changed between the two sides, with added and removed line counts. */
export async function diffSummary(
  repository: Repository,
  comparison: Comparison,
  options: DiffOptions = {},
): Promise<FileSummary[]> {
  const output = await repository.output(
    diffCommand(comparison, ['--raw', '--numstat', '-z', ...renameOptions(options)], options.paths ?? []),
    { ...(options.signal && { signal: options.signal }) },
  );
  return parseRawNumstat(output);
}

export function summaryTotals(files: readonly FileSummary[]) {
  return {
    files: files.length,
    added: files.reduce((sum, file) => sum + (file.added ?? 0), 0),
    removed: files.reduce((sum, file) => sum + (file.removed ?? 0), 0),
  };
}
