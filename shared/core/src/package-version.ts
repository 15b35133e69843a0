import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { errnoCode } from './tool-error.js';

const versions = new Map<string, string>();

/**
 * The version in the manifest of the package holding `moduleUrl` (pass `import.meta.url`): the
 * nearest package.json above it, from `src/` in tests as from `dist/` when built, so a version is
 * written only in package.json. Read once per folder, when first asked, never at import.
 */
export function packageVersion(moduleUrl: string): string {
  const start = path.dirname(fileURLToPath(moduleUrl));
  const known = versions.get(start);
  if (known) return known;
  for (let folder = start; ; folder = path.dirname(folder)) {
    let manifest: { version?: unknown } | undefined;
    try {
      manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'));
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
    }
    if (typeof manifest?.version === 'string') {
      versions.set(start, manifest.version);
      return manifest.version;
    }
    if (path.dirname(folder) === folder) throw new Error(`No package.json with a version holds ${start}`);
  }
}
