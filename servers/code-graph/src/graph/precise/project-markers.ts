import { existsSync } from 'node:fs';
import path from 'node:path';

/** The stored languages the TypeScript checker reads. */
export const CHECKED_LANGUAGES: ReadonlySet<string> = new Set(['typescript', 'tsx', 'javascript']);

const CONFIG_NAMES = ['tsconfig.json', 'jsconfig.json'];

export interface ProjectMarkers {
  /** tsconfig.json and jsconfig.json files, absolute, deepest folder first. */
  configs: string[];
  /** Folders holding a package.json, absolute, deepest first. */
  packages: string[];
}

/**
 * The project files that say how a root's TypeScript and JavaScript is compiled: every
 * tsconfig.json, jsconfig.json and package.json in a folder that holds (or is above) one of
 * `files`, and, above the root, the nearest of each, as the compiler and Node look upwards.
 */
export function findProjectMarkers(root: string, files: readonly string[]): ProjectMarkers {
  const folders = new Set<string>();
  for (const file of files) {
    let folder = path.dirname(path.join(root, file));
    while (!folders.has(folder) && folder.length >= root.length) {
      folders.add(folder);
      folder = path.dirname(folder);
    }
  }
  const configs: string[] = [];
  const packages: string[] = [];
  for (const folder of folders) {
    for (const name of CONFIG_NAMES) {
      if (existsSync(path.join(folder, name))) configs.push(path.join(folder, name));
    }
    if (existsSync(path.join(folder, 'package.json'))) packages.push(folder);
  }
  let config = false;
  let pkg = false;
  for (let above = path.dirname(root); !(config && pkg); above = path.dirname(above)) {
    const found = CONFIG_NAMES.map((name) => path.join(above, name)).find((file) => existsSync(file));
    if (!config && found) {
      configs.push(found);
      config = true;
    }
    if (!pkg && existsSync(path.join(above, 'package.json'))) {
      packages.push(above);
      pkg = true;
    }
    if (path.dirname(above) === above) break;
  }
  const deepestFirst = (a: string, b: string) => b.length - a.length || a.localeCompare(b);
  return { configs: configs.sort(deepestFirst), packages: packages.sort(deepestFirst) };
}
