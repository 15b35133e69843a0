import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Every toolmesh these tests start, in process or as a child, keeps its state in one temporary
 * data directory and its code cache in one temporary cache directory, never in the user's own.
 */
export default function isolateDataDirectory(): () => void {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-test-data-'));
  const cache = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-test-cache-'));
  process.env.TOOLMESH_DATA_DIR = folder;
  process.env.TOOLMESH_CACHE_DIR = cache;
  return () => {
    rmSync(folder, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  };
}
