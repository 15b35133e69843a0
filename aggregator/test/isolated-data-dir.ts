import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Every toolmesh these tests start, in process or as a child, keeps its state in one temporary
 * data directory, never in the user's own.
 */
export default function isolateDataDirectory(): () => void {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-test-data-'));
  process.env.TOOLMESH_DATA_DIR = folder;
  return () => rmSync(folder, { recursive: true, force: true });
}
