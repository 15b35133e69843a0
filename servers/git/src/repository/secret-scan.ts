import { secretFileKind } from '@toolmesh/core';
import type { Comparison } from './comparison.js';
import type { FileSummary } from './diff-summary.js';
import { patchBatches } from './file-patches.js';
import type { Repository } from './repository.js';
import { secretsInText } from './secret-rules.js';

export interface SecretFinding {
  /** The file, or "(commit message)". */
  path: string;
  /** The line in the staged version; null when the file's name alone is the finding. */
  line: number | null;
  rule: string;
}

/** Enough to act on; a commit with more findings is refused all the same. */
const MAX_FINDINGS = 50;

/**
 * What in the staged changes looks like a secret: files that are secrets by their name, and
 * added lines (and only added ones: removing a secret is welcome) that match a token format or
 * assign a random-looking value to a secret name. The secret itself is never part of a finding.
 */
export async function scanStagedChanges(
  repository: Repository,
  staged: Comparison,
  files: readonly FileSummary[],
  signal?: AbortSignal,
): Promise<SecretFinding[]> {
  const findings: SecretFinding[] = [];
  for (const file of files) {
    const kind = file.change === 'deleted' ? undefined : secretFileKind(file.path);
    if (kind) findings.push({ path: file.path, line: null, rule: kind });
  }
  const options = { ...(signal && { signal }) };
  for await (const batch of patchBatches(
    repository,
    staged,
    files,
    0,
    { contextLines: 0, secretFiles: 'show' },
    options,
  )) {
    for (const { file, patch } of batch) {
      // The added lines of a file, scanned as one text so that a secret spanning lines is seen.
      const added: string[] = [];
      const lineNumbers: number[] = [];
      for (const hunk of patch?.hunks ?? []) {
        let line = hunk.newStart;
        for (const text of hunk.lines) {
          if (!text.startsWith('+')) continue;
          added.push(text.slice(1));
          lineNumbers.push(line++);
        }
      }
      for (const { line, rule } of secretsInText(added.join('\n'))) {
        findings.push({ path: file.path, line: lineNumbers[line - 1] ?? null, rule });
        if (findings.length >= MAX_FINDINGS) return findings;
      }
    }
  }
  return findings;
}

export function scanMessage(message: string): SecretFinding[] {
  return secretsInText(message).map(({ line, rule }) => ({ path: '(commit message)', line, rule }));
}
