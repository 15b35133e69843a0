import { promises as fs } from 'node:fs';
import path from 'node:path';
import { errnoCode } from '@toolmesh/core';
import { createFileExclusive, writeFileAtomic } from './atomic-write.js';
import { chmodFolderEntry, inPinnedFolder, withPinnedFile } from './pinned.js';

/** What a path holds, or should hold. */
export type PathState =
  | { kind: 'file'; content: Buffer; mode: number }
  | { kind: 'directory'; mode: number }
  | { kind: 'absent' };

export async function readPathState(
  absolute: string,
  /** A file larger than this is not read: `tooLarge` says why instead. */
  limit?: { maxFileBytes: number; tooLarge: (size: number) => Error },
): Promise<PathState> {
  let stat: Awaited<ReturnType<typeof fs.lstat>>;
  try {
    stat = await fs.lstat(absolute);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return { kind: 'absent' };
    throw error;
  }
  if (stat.isDirectory()) return { kind: 'directory', mode: stat.mode & 0o7777 };
  if (stat.isFile()) {
    if (limit && stat.size > limit.maxFileBytes) throw limit.tooLarge(stat.size);
    const notAFile = () => new Error(`${absolute} stopped being a file while it was read`);
    return withPinnedFile(absolute, notAFile, async (handle, opened) => {
      if (limit && opened.size > limit.maxFileBytes) throw limit.tooLarge(opened.size);
      return { kind: 'file', content: await handle.readFile(), mode: opened.mode & 0o7777 };
    });
  }
  throw new Error(`${absolute} is neither a file nor a folder`);
}

export class ChangeFailure extends Error {
  override readonly name = 'ChangeFailure';
  constructor(
    readonly path: string,
    override readonly cause: unknown,
  ) {
    super(`${path}: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

const depth = (absolute: string) => absolute.split(path.sep).length;

/** Neither rmdir nor unlink follows a symlink at the entry itself. */
async function removeIfPresent(absolute: string): Promise<void> {
  let parentFound = false;
  await inPinnedFolder(absolute, async (entry) => {
    parentFound = true;
    const state = await fs.lstat(entry).catch(() => undefined);
    if (!state) return;
    if (state.isDirectory()) await fs.rmdir(entry);
    else await fs.unlink(entry);
  }).catch((error) => {
    const missing = errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR';
    if (parentFound || !missing) throw error;
  });
}

async function makeFolder(absolute: string, mode: number): Promise<void> {
  await inPinnedFolder(absolute, async (entry) => {
    const existing = await fs.lstat(entry).catch(() => undefined);
    if (!existing) await fs.mkdir(entry, { mode });
    else if (!existing.isDirectory()) throw new Error('a file stands where a folder should be');
    await chmodFolderEntry(entry, mode);
  });
}

/** `original` is what the path held when the change began: a file that was absent is created exclusively. */
async function applyState(absolute: string, state: PathState, original?: PathState): Promise<void> {
  if (state.kind === 'directory') {
    await makeFolder(absolute, state.mode);
  } else if (state.kind === 'file') {
    // A file that appeared since the change was planned is somebody's work: fail, do not clobber it.
    if (original?.kind === 'absent') await createFileExclusive(absolute, state.content, state.mode);
    else await writeFileAtomic(absolute, state.content, state.mode);
  } else {
    await removeIfPresent(absolute);
  }
}

/** Orders changes so each step finds what it needs: folders made parents-first, removed children-first. */
function ordered(targets: ReadonlyMap<string, PathState>): [string, PathState][] {
  const entries = [...targets];
  const folders = entries.filter(([, s]) => s.kind === 'directory').sort(([a], [b]) => depth(a) - depth(b));
  const files = entries.filter(([, s]) => s.kind === 'file');
  const removals = entries.filter(([, s]) => s.kind === 'absent').sort(([a], [b]) => depth(b) - depth(a));
  return [...folders, ...files, ...removals];
}

/**
 * Brings every path to its target state, or none: the original state of each path is captured
 * first, and if any step fails every path is put back (removals of what was created first,
 * then the originals, with their mode bits) before the failure is reported.
 */
export async function applyChanges(
  targets: ReadonlyMap<string, PathState>,
  /** What each path held when the change was planned, if it was planned earlier. */
  planned: ReadonlyMap<string, PathState> = new Map(),
): Promise<void> {
  const originals = new Map<string, PathState>();
  for (const absolute of targets.keys()) originals.set(absolute, await readPathState(absolute));
  const steps = ordered(targets);
  const applied: string[] = [];
  let failed: ChangeFailure | undefined;
  for (const [absolute, state] of steps) {
    try {
      await applyState(absolute, state, planned.get(absolute) ?? originals.get(absolute));
      applied.push(absolute);
    } catch (error) {
      failed = new ChangeFailure(absolute, error);
      break;
    }
  }
  if (!failed) return;
  // Only what this change did is undone: a path whose step failed or never ran may hold
  // somebody else's work (a file that appeared meanwhile) and is left alone.
  const undone = new Map(applied.map((absolute) => [absolute, originals.get(absolute) as PathState]));
  const created = [...undone].filter(([, s]) => s.kind === 'absent').sort(([a], [b]) => depth(b) - depth(a));
  for (const [absolute] of created) await removeIfPresent(absolute).catch(() => undefined);
  for (const [absolute, state] of ordered(new Map([...undone].filter(([, s]) => s.kind !== 'absent')))) {
    await applyState(absolute, state).catch(() => undefined);
  }
  throw failed;
}
