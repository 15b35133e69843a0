import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export function temporaryBeside(target: string): string {
  return path.join(
    path.dirname(target),
    `.${path.basename(target).slice(0, 200)}.${randomBytes(6).toString('hex')}.tmp`,
  );
}

async function writeTemporary(target: string, data: Buffer, mode: number): Promise<string> {
  const temporary = temporaryBeside(target);
  // 'wx' creates the file or fails: a symlink planted at the temporary name is never followed.
  const handle = await fs.open(temporary, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.chmod(mode);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return temporary;
}

/**
 * Replaces `target` with `data` in one step: readers see the old file or the new one, never a
 * mix, and a symlink swapped in at `target` is replaced, not written through.
 */
export async function writeFileAtomic(target: string, data: Buffer, mode = 0o644): Promise<void> {
  const temporary = await writeTemporary(target, data, mode);
  try {
    await fs.rename(temporary, target);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
}

/** Creates `target` with `data`, failing with EEXIST if anything is there, even if it appeared meanwhile. */
export async function createFileExclusive(target: string, data: Buffer, mode = 0o644): Promise<void> {
  const temporary = await writeTemporary(target, data, mode);
  try {
    await fs.link(temporary, target);
  } finally {
    await fs.rm(temporary, { force: true });
  }
}
