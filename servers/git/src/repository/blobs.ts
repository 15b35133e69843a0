import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '@toolmesh/core';
import type { Repository } from './repository.js';

/** Larger files get no outline: the semantic diff falls back to git's hunk headers. */
export const MAX_OUTLINE_BYTES = 1024 * 1024;

/** One side of a comparison a file's content is read from. */
export type Side = { kind: 'worktree' } | { kind: 'index' } | { kind: 'commit'; commit: string };

function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8000).includes(0);
}

/**
 * Text contents of files at one side, read with a single `git cat-file --batch`; a file that is
 * missing, binary or larger than MAX_OUTLINE_BYTES is left out.
 */
export async function readTexts(
  repository: Repository,
  side: Side,
  files: readonly string[],
  signal?: AbortSignal,
): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  if (files.length === 0) return texts;
  if (side.kind === 'worktree') {
    for (const file of files) {
      const text = readWorktreeText(repository, file);
      if (text !== undefined) texts.set(file, text);
    }
    return texts;
  }
  const prefix = side.kind === 'index' ? ':0:' : `${side.commit}:`;
  // Object names are one per line, so a path with a newline cannot be asked for this way.
  const asked = files.filter((file) => !file.includes('\n'));
  const result = await repository.git({
    args: ['cat-file', '--batch'],
    input: asked.map((file) => `${prefix}${file}\n`).join(''),
    ...(signal && { signal }),
  });
  const bytes = result.bytes;
  let offset = 0;
  for (const file of asked) {
    const newline = bytes.indexOf(10, offset);
    if (newline < 0) break;
    const header = bytes.subarray(offset, newline).toString('utf8');
    offset = newline + 1;
    const found = / blob (\d+)$/.exec(header);
    if (!found) continue;
    const size = Number(found[1]);
    const content = bytes.subarray(offset, offset + size);
    offset += size + 1;
    if (size <= MAX_OUTLINE_BYTES && !looksBinary(content)) texts.set(file, content.toString('utf8'));
  }
  return texts;
}

/** A work tree file's text, if it is a regular file really inside the repository. */
function readWorktreeText(repository: Repository, file: string): string | undefined {
  const absolute = path.join(repository.top, file);
  try {
    const stat = lstatSync(absolute);
    if (!stat.isFile() || stat.size > MAX_OUTLINE_BYTES) return undefined;
    if (!isInside(repository.top, realpathSync.native(absolute))) return undefined;
    const content = readFileSync(absolute);
    return looksBinary(content) ? undefined : content.toString('utf8');
  } catch {
    return undefined;
  }
}
