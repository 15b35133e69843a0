import path from 'node:path';
import { type DenyRules, isInside, type PathGuard } from '@toolmesh/core';
import type { CheckpointStore } from './checkpoints.js';
import type { RootSet } from './roots.js';

/** What every fs tool works with: the session's roots and the shared checkpoint store. */
export interface FsEngine {
  roots: RootSet;
  checkpoints: CheckpointStore;
  deny: DenyRules;
  /** Largest file read_file and search_text read, unless a call asks for more. */
  maxFileBytes: number;
}

/** How paths are shown back: relative to the first root (how they are passed in), else absolute. */
export function displayPath(guard: PathGuard, absolute: string): string {
  const primary = guard.realRoots[0];
  if (primary && isInside(primary, absolute)) {
    const relative = path.relative(primary, absolute).split(path.sep).join('/');
    return relative === '' ? '.' : relative;
  }
  return absolute;
}
