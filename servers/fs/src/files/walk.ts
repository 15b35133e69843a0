import type { Dirent } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { readPinnedFileSync, readPinnedFolderSync } from './pinned.js';

/** Folders that listing and searching skip unless asked: build output and dependencies. */
export const SKIPPED_DIRECTORIES = new Set([
  '.git',
  'node_modules',
  'vendor',
  'dist',
  'build',
  '.next',
  '.venv',
  'venv',
]);

export type EntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface WalkEntry {
  /** Absolute path. */
  absolute: string;
  /** Relative to the root, with forward slashes. */
  relative: string;
  type: EntryType;
  depth: number;
}

export interface WalkOptions {
  root: string;
  /** Where to start; the root itself or a folder inside it. */
  start: string;
  maxDepth: number;
  /** Also walk SKIPPED_DIRECTORIES and what .gitignore ignores. */
  includeIgnored: boolean;
  /** Entries (relative paths) to leave out entirely, such as denied secrets. */
  exclude?: (relative: string) => boolean;
}

function entryType(dirent: Dirent): EntryType {
  if (dirent.isSymbolicLink()) return 'symlink';
  if (dirent.isDirectory()) return 'directory';
  if (dirent.isFile()) return 'file';
  return 'other';
}

/** Larger than any .gitignore written by hand or tool; a bigger one is not read. */
const MAX_GITIGNORE_BYTES = 4 * 1024 * 1024;

/**
 * The root's .gitignore as a matcher, or undefined when it has none (or none that is a regular
 * file: a FIFO there would stall the walk). `root` is a real path.
 */
export function loadGitignore(root: string): Ignore | undefined {
  let bytes: Buffer | undefined;
  try {
    bytes = readPinnedFileSync(path.join(root, '.gitignore'), MAX_GITIGNORE_BYTES);
  } catch {
    return undefined;
  }
  return bytes && ignore().add(bytes.toString('utf8'));
}

/**
 * Depth-first walk in name order, so that the same tree always yields the same sequence (cursors
 * depend on it). Never follows symlinks: a symlink is reported, not entered.
 */
export function* walkTree(options: WalkOptions): Generator<WalkEntry> {
  const gitignore = options.includeIgnored ? undefined : loadGitignore(options.root);
  const toRelative = (absolute: string) => path.relative(options.root, absolute).split(path.sep).join('/');

  function* visit(directory: string, depth: number): Generator<WalkEntry> {
    let dirents: Dirent[];
    try {
      // Through the folder as opened: one swapped for a link out of the roots is not listed.
      dirents = readPinnedFolderSync(directory);
    } catch {
      return;
    }
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const dirent of dirents) {
      const absolute = path.join(directory, dirent.name);
      const relative = toRelative(absolute);
      const type = entryType(dirent);
      if (options.exclude?.(relative)) continue;
      if (!options.includeIgnored) {
        if (type === 'directory' && SKIPPED_DIRECTORIES.has(dirent.name)) continue;
        if (gitignore?.ignores(type === 'directory' ? `${relative}/` : relative)) continue;
      }
      yield { absolute, relative, type, depth };
      if (type === 'directory' && depth < options.maxDepth) yield* visit(absolute, depth + 1);
    }
  }

  yield* visit(options.start, 1);
}
