import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { inPinnedFolder } from './pinned.js';

/** Writes a new file's content into its open handle. */
export type FileContent = Buffer | ((handle: FileHandle) => Promise<void>);

export function temporaryBeside(target: string): string {
  return path.join(
    path.dirname(target),
    `.${path.basename(target).slice(0, 200)}.${randomBytes(6).toString('hex')}.tmp`,
  );
}

async function writeTemporary(target: string, content: FileContent, mode: number): Promise<string> {
  const temporary = temporaryBeside(target);
  // 'wx' creates the file or fails: a symlink planted at the temporary name is never followed.
  const handle = await fs.open(temporary, 'wx', mode);
  try {
    if (Buffer.isBuffer(content)) await handle.writeFile(content);
    else await content(handle);
    await handle.chmod(mode);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await fs.rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  return temporary;
}

/**
 * Writes `content` to a temporary file in `target`'s folder as opened (pinned.ts) and moves it to
 * `target` with `place`; the temporary file never outlives the call.
 */
function placeNew(
  target: string,
  content: FileContent,
  mode: number,
  place: (temporary: string, entry: string) => Promise<void>,
): Promise<void> {
  return inPinnedFolder(target, async (entry) => {
    const temporary = await writeTemporary(entry, content, mode);
    try {
      await place(temporary, entry);
    } finally {
      await fs.rm(temporary, { force: true });
    }
  });
}

/**
 * Replaces `target` (a real path) with `content` in one step: readers see the old file or the new
 * one, never a mix; a symlink swapped in at `target` is replaced, not written through, and one
 * swapped in for a folder above it is caught (pinned.ts).
 */
export function writeFileAtomic(target: string, content: FileContent, mode = 0o644): Promise<void> {
  return placeNew(target, content, mode, fs.rename);
}

/** Creates `target` (a real path) with `content`, failing with EEXIST if anything is there, even if it appeared meanwhile. */
export function createFileExclusive(target: string, content: FileContent, mode = 0o644): Promise<void> {
  return placeNew(target, content, mode, fs.link);
}
