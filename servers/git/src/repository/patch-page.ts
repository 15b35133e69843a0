import { utf8Bytes } from '@toolmesh/core';
import type { Comparison } from './comparison.js';
import type { DiffOptions, FileSummary } from './diff-summary.js';
import { patchBatches } from './file-patches.js';
import type { Repository } from './repository.js';
import { patchText } from './unified-diff.js';

/** Where a patch page starts: a file of the summary, and a hunk of that file. */
export interface PatchPosition {
  file: number;
  hunk: number;
}

export interface PatchPage {
  /** Unified diff text; a file continued from the page before repeats its header lines. */
  patch: string;
  /** The summary entries of the files this page shows (some of). */
  files: FileSummary[];
  next?: PatchPosition;
  /** Set, with no `next`, when the piece the page starts at alone is larger than the budget. */
  blockedBytes?: number;
}

/**
 * As much of the patch as fits `budgetBytes`, from `start`, cut between hunks. Each piece is a
 * hunk (the first of a file carries the file's header lines), so every page is a valid patch.
 */
export async function patchPage(
  repository: Repository,
  comparison: Comparison,
  files: readonly FileSummary[],
  start: PatchPosition,
  budgetBytes: number,
  options: DiffOptions & { contextLines: number },
): Promise<PatchPage> {
  const parts: string[] = [];
  const shown: FileSummary[] = [];
  let used = 0;
  for await (const batch of patchBatches(
    repository,
    comparison,
    files,
    start.file,
    { ...options, budgetBytes },
    options,
  )) {
    for (const { index, file, patch } of batch) {
      if (!patch) continue;
      const firstHunk = index === start.file ? start.hunk : 0;
      const pieces =
        patch.hunks.length === 0
          ? [{ hunk: 0, text: patchText(patch, []) }]
          : patch.hunks.slice(firstHunk).map((hunk, offset) => ({
              hunk: firstHunk + offset,
              text: offset === 0 ? patchText(patch, [hunk]) : patchText({ ...patch, header: [] }, [hunk]),
            }));
      for (const piece of pieces) {
        const bytes = utf8Bytes(piece.text);
        if (used + bytes > budgetBytes) {
          const next = { file: index, hunk: piece.hunk };
          return used === 0
            ? { patch: '', files: [], blockedBytes: bytes }
            : { patch: parts.join(''), files: shown, next };
        }
        used += bytes;
        parts.push(piece.text);
        if (shown.at(-1) !== file) shown.push(file);
      }
    }
  }
  return { patch: parts.join(''), files: shown };
}
