import { type Comparison, diffCommand } from './comparison.js';
import { type DiffOptions, type FileSummary, renameOptions } from './diff-summary.js';
import type { Repository } from './repository.js';
import { type PatchFile, parseUnifiedDiff, pathOf } from './unified-diff.js';
import { withheldPatch, withheldReason } from './withheld-secrets.js';

/** Files per `git diff` call, and changed lines per call, when walking a large diff. */
const BATCH_FILES = 50;
const BATCH_LINES = 5000;
/** About what a changed line costs in a patch, to fetch no more than one answer's budget holds. */
const BYTES_PER_LINE = 32;

export interface FilePatch {
  index: number;
  file: FileSummary;
  patch: PatchFile | undefined;
}

export interface PatchFormat {
  contextLines: number;
  /** Settings for the `git diff` runs, such as the attributes file naming hunk headers. */
  config?: readonly (readonly [string, string])[];
  /** The budget of the answer being filled, so that a batch is about what it can hold. */
  budgetBytes?: number;
  /** Only the commit's secret scan reads secret files' patches; every answer withholds them. */
  secretFiles?: 'withhold' | 'show';
}

function shownPatch(file: FileSummary, patch: PatchFile | undefined, format: PatchFormat) {
  if (!patch || format.secretFiles === 'show') return patch;
  const reason = withheldReason(file.path) ?? (file.oldPath && withheldReason(file.oldPath));
  return reason ? withheldPatch(patch, reason) : patch;
}

/** The next slice of `files` from `start`: up to BATCH_FILES files or about `maxLines` changed lines. */
function batchFrom(files: readonly FileSummary[], start: number, maxLines: number): number {
  let end = start;
  let lines = 0;
  while (end < files.length && end - start < BATCH_FILES) {
    const file = files[end] as FileSummary;
    lines += (file.added ?? 0) + (file.removed ?? 0);
    end++;
    if (lines >= maxLines) break;
  }
  return end;
}

/**
 * The patches of the summarised files from `start` on, in order, one batch of files per `git
 * diff`, so that a diff far larger than one answer is never produced whole. The consumer stops
 * early by leaving its loop.
 */
export async function* patchBatches(
  repository: Repository,
  comparison: Comparison,
  files: readonly FileSummary[],
  start: number,
  format: PatchFormat,
  options: DiffOptions = {},
): AsyncGenerator<FilePatch[]> {
  const maxLines = format.budgetBytes
    ? Math.min(BATCH_LINES, Math.ceil(format.budgetBytes / BYTES_PER_LINE))
    : BATCH_LINES;
  for (let batchStart = start; batchStart < files.length; ) {
    const batchEnd = batchFrom(files, batchStart, maxLines);
    const batch = files.slice(batchStart, batchEnd);
    // A rename is only found when both of its paths are in the pathspec.
    const paths = batch.flatMap((file) => (file.oldPath ? [file.oldPath, file.path] : [file.path]));
    const output = await repository.output(
      diffCommand(
        comparison,
        ['--patch', `--unified=${format.contextLines}`, ...renameOptions(options)],
        paths,
      ),
      { ...(format.config && { config: format.config }), ...(options.signal && { signal: options.signal }) },
    );
    const byPath = new Map(parseUnifiedDiff(output).map((patch) => [pathOf(patch), patch]));
    yield batch.map((file, offset) => ({
      index: batchStart + offset,
      file,
      patch: shownPatch(file, byPath.get(file.path), format),
    }));
    batchStart = batchEnd;
  }
}
