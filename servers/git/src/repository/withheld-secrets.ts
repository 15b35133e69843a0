import { secretFileKind } from '@toolmesh/core';
import type { PatchFile } from './unified-diff.js';

/**
 * Why a file's content is not shown, when it is a secret by its name (core's list, the one fs
 * refuses to read and git_commit refuses to commit); undefined for any other file. Tracked or not,
 * its content stays out of what a model reads; its name, change and line counts do not.
 */
export function withheldReason(file: string): string | undefined {
  const kind = secretFileKind(file);
  return kind && `content withheld: ${file} is a secret by its name (${kind})`;
}

/** The patch of a secret file with its header kept and its hunks replaced by the reason. */
export function withheldPatch(patch: PatchFile, reason: string): PatchFile {
  const header = patch.header.filter((line) => !line.startsWith('--- ') && !line.startsWith('+++ '));
  return { ...patch, header: [...header, `# ${reason}`], hunks: [] };
}
