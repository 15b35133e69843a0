import {
  closeSync,
  type Dirent,
  existsSync,
  promises as fs,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  type Stats,
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

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = fs.constants;
/**
 * Linux's O_PATH (Node does not name it): a descriptor that only locates a folder, so pinning one
 * needs no read permission on it, just as a path through it does not.
 */
const O_PATH = 0o10000000;
const PIN_FOLDER = DESCRIPTOR_PATHS ? O_PATH | O_DIRECTORY : O_RDONLY | O_DIRECTORY;
/** A file is opened for reading without waiting on a FIFO, following a final link or taking a terminal. */
const READ_FILE = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;

export class PathChanged extends ToolError {
  constructor(checked: string, now: string) {
    super(
      `${checked} changed while in use: it now leads to ${now}, so nothing was done there. Retry once nothing else is moving folders or links on that path.`,
      'path_changed',
    );
  }
}

/** Throws unless the descriptor `fd`, opened at the real path `checked`, is still there. */
function expectAt(fd: number, checked: string, what: 'file' | 'folder'): void {
  let now: string;
  try {
    now = DESCRIPTOR_PATHS ? readlinkSync(`/proc/self/fd/${fd}`) : realpathSync.native(checked);
  } catch {
    now = `${checked} (gone)`;
  }
  // A file replaced by a rename since it was opened (an editor's or a build's save) was opened at
  // the checked path all the same: Linux then names it as deleted.
  if (now === checked || (what === 'file' && now === `${checked} (deleted)`)) return;
  throw new PathChanged(checked, now);
}

async function openChecked(absolute: string, flags: number, what: 'file' | 'folder'): Promise<FileHandle> {
  const handle = await fs.open(absolute, flags);
  try {
    expectAt(handle.fd, absolute, what);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** What a caller says when a path holds something other than a regular file. */
export type NotAFile = (stat: Stats) => Error;

/**
 * Runs `use` on the regular file at the real path `absolute`, opened and proven to be that file;
 * anything else there (a folder, a FIFO, a device, a socket, a link) gets `notAFile`, unopened.
 */
export async function withPinnedFile<T>(
  absolute: string,
  notAFile: NotAFile,
  use: (handle: FileHandle, stat: Stats) => Promise<T>,
): Promise<T> {
  const found = await fs.lstat(absolute);
  if (!found.isFile()) throw notAFile(found);
  const handle = await openChecked(absolute, READ_FILE, 'file');
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw notAFile(stat);
    return await use(handle, stat);
  } finally {
    await handle.close();
  }
}

/**
 * The bytes of the regular file at the real path `absolute`, opened and proven to be that file,
 * or undefined when it is larger than `maxBytes`: withPinnedFile for the search worker's loop,
 * whose walk has seen a regular file there (so it is opened without a look first).
 */
export function readPinnedFileSync(absolute: string, maxBytes: number): Buffer | undefined {
  const notAFile = () => new Error(`${absolute} is not a regular file`);
  const fd = openSync(absolute, READ_FILE);
  try {
    expectAt(fd, absolute, 'file');
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw notAFile();
    return stat.size > maxBytes ? undefined : readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The entries of the folder at the real path `absolute`, listed through it as opened. */
export function readPinnedFolderSync(absolute: string): Dirent[] {
  const fd = openSync(absolute, PIN_FOLDER);
  try {
    expectAt(fd, absolute, 'folder');
    return readdirSync(DESCRIPTOR_PATHS ? `/proc/self/fd/${fd}` : absolute, { withFileTypes: true });
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
  const folder = await openChecked(path.dirname(absolute), PIN_FOLDER, 'folder');
  try {
    const entry = DESCRIPTOR_PATHS ? `/proc/self/fd/${folder.fd}/${path.basename(absolute)}` : absolute;
    return await act(entry);
  } finally {
    await folder.close();
  }
}

/** Sets the mode of the folder at `entry` (a path from inPinnedFolder), refusing a symlink there. */
export async function chmodFolderEntry(entry: string, mode: number): Promise<void> {
  const folder = await fs.open(entry, PIN_FOLDER | O_NOFOLLOW);
  try {
    // An O_PATH descriptor takes no fchmod; its /proc name leads to the folder it holds.
    if (DESCRIPTOR_PATHS) await fs.chmod(`/proc/self/fd/${folder.fd}`, mode);
    else await folder.chmod(mode);
  } finally {
    await folder.close();
  }
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
