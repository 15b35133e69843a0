import {
  closeSync,
  existsSync,
  promises as fs,
  fstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
} from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { errnoCode, ToolError } from '@toolmesh/core';

/**
 * A path checked by the guard is used a moment later, and in between a folder on it can be swapped
 * for a symlink that leads out of the roots. So each file or folder is opened first and the real
 * path of what was opened is compared with the checked one: a descriptor cannot be redirected.
 * Linux names an open descriptor's path under /proc/self/fd; elsewhere the path is checked
 * again just before use, which narrows the window without closing it.
 */
const DESCRIPTOR_PATHS = process.platform === 'linux' && existsSync('/proc/self/fd');

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;

export class PathChanged extends ToolError {
  constructor(checked: string, now: string) {
    super(
      `${checked} changed while in use: it now leads to ${now}, so nothing was done there. Retry once nothing else is moving folders or links on that path.`,
      'path_changed',
    );
  }
}

/** Throws unless the descriptor `fd`, opened at the real path `checked`, is still there. */
function expectAt(fd: number, checked: string): void {
  let now: string;
  try {
    now = DESCRIPTOR_PATHS ? readlinkSync(`/proc/self/fd/${fd}`) : realpathSync.native(checked);
  } catch {
    now = `${checked} (gone)`;
  }
  if (now !== checked) throw new PathChanged(checked, now);
}

async function openChecked(absolute: string, flags: number): Promise<FileHandle> {
  const handle = await fs.open(absolute, flags);
  try {
    expectAt(handle.fd, absolute);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Runs `use` on the file at the real path `absolute`, opened and proven to be that file. Opening
 * does not wait on a FIFO and does not follow a final symlink, so check `handle.stat()` for the kind.
 */
export async function withPinnedFile<T>(
  absolute: string,
  use: (handle: FileHandle) => Promise<T>,
): Promise<T> {
  const handle = await openChecked(absolute, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    return await use(handle);
  } finally {
    await handle.close();
  }
}

/**
 * The bytes of the file at the real path `absolute`, opened and proven to be that file, or
 * undefined when it is larger than `maxBytes`: withPinnedFile for the search worker's loop.
 */
export function readPinnedFileSync(absolute: string, maxBytes: number): Buffer | undefined {
  const fd = openSync(absolute, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    expectAt(fd, absolute);
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${absolute} is not a file`);
    return stat.size > maxBytes ? undefined : readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Runs `act` with a path for `absolute` (a real path) that goes through its parent folder held
 * open: whatever later happens to the parent's path, `act` touches that folder's entry. A final
 * symlink at the entry is the caller's to avoid (lstat, O_NOFOLLOW, rename and unlink do).
 */
export async function inPinnedFolder<T>(absolute: string, act: (entry: string) => Promise<T>): Promise<T> {
  const folder = await openChecked(path.dirname(absolute), O_RDONLY | O_DIRECTORY);
  try {
    const entry = DESCRIPTOR_PATHS ? `/proc/self/fd/${folder.fd}/${path.basename(absolute)}` : absolute;
    return await act(entry);
  } finally {
    await folder.close();
  }
}

/** Opens the folder at `entry` (a path from inPinnedFolder) itself, refusing a symlink there. */
export function openFolderEntry(entry: string): Promise<FileHandle> {
  return fs.open(entry, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
}

/** Makes the folder `absolute` (a real path) and any missing above it, each inside its parent as opened. */
export async function makeFolders(absolute: string): Promise<void> {
  const missing: string[] = [];
  for (let folder = absolute; folder !== path.dirname(folder); folder = path.dirname(folder)) {
    if ((await fs.lstat(folder).catch(() => undefined))?.isDirectory()) break;
    missing.push(folder);
  }
  for (const folder of missing.reverse()) {
    await inPinnedFolder(folder, (entry) =>
      fs.mkdir(entry).catch((error) => {
        if (errnoCode(error) !== 'EEXIST') throw error;
      }),
    );
  }
}
