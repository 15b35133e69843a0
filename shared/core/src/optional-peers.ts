import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageManifest } from './package-version.js';

/** Whether Node would find the package `name` from the folder `start`, as it walks up node_modules. */
function installedFrom(start: string, name: string): boolean {
  for (let folder = start; ; folder = path.dirname(folder)) {
    if (existsSync(path.join(folder, 'node_modules', name, 'package.json'))) return true;
    if (path.dirname(folder) === folder) return false;
  }
}

/**
 * What is missing of the optional peer dependencies `peers` of the package holding `moduleUrl`
 * (pass `import.meta.url`), as a message naming the npm command that installs them, or undefined
 * when all are there. A package keeps what only some uses need as an optional peer, so that an
 * install without them stays small. `purpose` says what needs them, e.g. "this server keeps its
 * data in SQLite".
 */
export function missingOptionalPeers(
  moduleUrl: string,
  peers: readonly string[],
  purpose: string,
): string | undefined {
  const start = path.dirname(fileURLToPath(moduleUrl));
  const missing = peers.filter((name) => !installedFrom(start, name));
  if (missing.length === 0) return undefined;
  const manifest = packageManifest(moduleUrl);
  const specs = missing.map((name) => `${name}@${manifest.peerDependencies?.[name] ?? 'latest'}`);
  const packages =
    missing.length === 1 ? `the ${missing[0]} package is` : `the packages ${missing.join(', ')} are`;
  return `${purpose}, but ${packages} not installed beside ${manifest.name}: run \`npm install ${specs.join(' ')}\` in the folder the server is installed in`;
}

/** Throws the message of `missingOptionalPeers` when a peer is missing, before a feature loads it. */
export function requireOptionalPeers(moduleUrl: string, peers: readonly string[], purpose: string): void {
  const problem = missingOptionalPeers(moduleUrl, peers, purpose);
  if (problem !== undefined) throw new Error(problem);
}
