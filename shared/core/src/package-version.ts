import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { errnoCode } from './tool-error.js';

const manifests = new Map<string, PackageManifest>();

/** The fields of a package.json that toolmesh reads. */
export interface PackageManifest {
  name?: string;
  version: string;
  peerDependencies?: Record<string, string>;
}

/**
 * The manifest of the package holding `moduleUrl` (pass `import.meta.url`): the nearest
 * package.json with a version above it, from `src/` in tests as from `dist/` when built. Read
 * once per folder, when first asked, never at import.
 */
export function packageManifest(moduleUrl: string): PackageManifest {
  const start = path.dirname(fileURLToPath(moduleUrl));
  const known = manifests.get(start);
  if (known) return known;
  for (let folder = start; ; folder = path.dirname(folder)) {
    let manifest: Partial<PackageManifest> | undefined;
    try {
      manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'));
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
    }
    if (typeof manifest?.version === 'string') {
      manifests.set(start, manifest as PackageManifest);
      return manifest as PackageManifest;
    }
    if (path.dirname(folder) === folder) throw new Error(`No package.json with a version holds ${start}`);
  }
}

/** The version of the package holding `moduleUrl`, so a version is written only in package.json. */
export function packageVersion(moduleUrl: string): string {
  return packageManifest(moduleUrl).version;
}
