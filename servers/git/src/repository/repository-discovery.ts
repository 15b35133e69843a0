import { type Dirent, readdirSync } from 'node:fs';
import path from 'node:path';
import { gitFoldersOf } from './git-folder.js';

/** Folders never searched for repositories: dependencies, build output, environments. */
const SKIPPED = new Set([
  'node_modules',
  'vendor',
  'dist',
  'build',
  'target',
  '.venv',
  'venv',
  '.next',
  '.cache',
]);

export interface Discovery {
  /** Real paths of the work trees' top folders, in walk order. */
  tops: string[];
  limitReached: boolean;
}

/**
 * The repositories under the roots, breadth first to `maxDepth` folders below each root. A
 * repository's own folders are not searched further (its submodules are its business), and
 * symlinked folders are not followed.
 */
export function discoverRepositories(roots: readonly string[], maxDepth: number, limit: number): Discovery {
  const tops: string[] = [];
  const seen = new Set<string>();
  for (const root of roots) {
    let level = [root];
    for (let depth = 0; depth <= maxDepth && level.length > 0; depth++) {
      const next: string[] = [];
      for (const folder of level) {
        if (gitFoldersOf(folder)) {
          if (!seen.has(folder)) {
            if (tops.length >= limit) return { tops, limitReached: true };
            seen.add(folder);
            tops.push(folder);
          }
          continue;
        }
        if (depth === maxDepth) continue;
        let entries: Dirent[];
        try {
          entries = readdirSync(folder, { withFileTypes: true });
        } catch {
          continue;
        }
        for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
          if (entry.isDirectory() && !SKIPPED.has(entry.name) && entry.name !== '.git') {
            next.push(path.join(folder, entry.name));
          }
        }
      }
      level = next;
    }
  }
  return { tops, limitReached: false };
}
