import { mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function tempDir(prefix = 'toolmesh-feeds-'): string {
  return realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
}
