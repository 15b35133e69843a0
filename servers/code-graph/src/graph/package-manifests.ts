import { readFileSync } from 'node:fs';
import path from 'node:path';

/** What one package.json under the root says about importing the package by its own name. */
interface Manifest {
  /** Root-relative folder of the package.json, '' for the root itself. */
  folder: string;
  name?: string;
  exports?: unknown;
  imports?: unknown;
  /** Entry points when there is no `exports` map, most likely first. */
  entries: string[];
  /** Build output folder → source folder, from the package's tsconfig.json (root-relative). */
  build?: { outDir: string; rootDirs: string[] };
}

/** Files whose edit can change what a package's own name or `#` imports mean. */
export function isPackageManifest(relative: string): boolean {
  const base = relative.slice(relative.lastIndexOf('/') + 1);
  return base === 'package.json' || base === 'tsconfig.json';
}

const SOURCE_EXTENSIONS: Record<string, string[]> = {
  '.js': ['.ts', '.tsx', '.js', '.jsx'],
  '.jsx': ['.tsx', '.jsx'],
  '.mjs': ['.mts', '.ts', '.mjs'],
  '.cjs': ['.cts', '.ts', '.cjs'],
  '.d.ts': ['.ts', '.tsx', '.d.ts'],
  '.d.mts': ['.mts', '.ts', '.d.mts'],
  '.d.cts': ['.cts', '.ts', '.d.cts'],
};

/**
 * A package importing itself: `import * as z from "zod/v4"` inside zod, or `#internal` through
 * its `imports` field. Node and TypeScript resolve such a specifier through the nearest
 * package.json whose `name` it starts with, by its `exports` map; the map may point at sources
 * (zod's `@zod/source` condition) or at build output, which is mapped back to the sources by the
 * package's tsconfig.json (`outDir` → `rootDir`). Every condition is considered: any of them
 * that reaches a file under the root names the code that runs. Read once per resolution batch.
 */
export class PackageManifests {
  private readonly byFolder = new Map<string, Manifest | undefined>();

  constructor(private readonly root: string) {}

  /**
   * The root-relative files a bare or `#` specifier written in `fromFile` may mean, most likely
   * first; empty when it names no package under the root.
   */
  candidates(fromFile: string, specifier: string): string[] {
    const manifest = this.nearest(path.posix.dirname(fromFile));
    if (!manifest) return [];
    let targets: string[];
    if (specifier.startsWith('#')) {
      targets = manifest.imports !== undefined ? mapTargets(manifest.imports, specifier, false) : [];
    } else if (manifest.name && (specifier === manifest.name || specifier.startsWith(`${manifest.name}/`))) {
      const subpath = `.${specifier.slice(manifest.name.length)}`;
      if (manifest.exports !== undefined) targets = mapTargets(manifest.exports, subpath, true);
      else targets = subpath === '.' ? manifest.entries : [subpath];
    } else {
      return [];
    }
    const found: string[] = [];
    for (const target of targets) {
      if (!target.startsWith('./')) continue;
      const file = path.posix.normalize(path.posix.join(manifest.folder, target));
      if (file.startsWith('..')) continue;
      found.push(...sourcesOf(file, manifest.build));
    }
    return [...new Set(found)];
  }

  /** The package.json at or above `folder`, inside the root. */
  private nearest(folder: string): Manifest | undefined {
    const key = folder === '.' ? '' : folder;
    if (this.byFolder.has(key)) return this.byFolder.get(key);
    const manifest = this.read(key) ?? (key === '' ? undefined : this.nearest(path.posix.dirname(key)));
    this.byFolder.set(key, manifest);
    return manifest;
  }

  private read(folder: string): Manifest | undefined {
    const json = readJson(path.join(this.root, folder, 'package.json'));
    if (!json) return undefined;
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    const entries = [json.source, json.module, json.main, json.types, json.typings]
      .map(text)
      .filter((entry): entry is string => entry !== undefined)
      .map((entry) => (entry.startsWith('./') ? entry : `./${entry}`));
    entries.push('./index.js');
    const build = buildFolders(this.root, folder);
    return {
      folder,
      ...(text(json.name) && { name: text(json.name) }),
      ...(json.exports !== undefined && json.exports !== null && { exports: json.exports }),
      ...(json.imports !== undefined && json.imports !== null && { imports: json.imports }),
      entries,
      ...(build && { build }),
    };
  }
}

/**
 * The targets an `exports` or `imports` map gives `key`, every condition's in the order written.
 * `exports` may be one target or a conditions object standing for `"."`.
 */
function mapTargets(map: unknown, key: string, isExports: boolean): string[] {
  if (isExports && (typeof map === 'string' || Array.isArray(map) || !hasSubpathKeys(map))) {
    return key === '.' ? leafTargets(map) : [];
  }
  if (typeof map !== 'object' || map === null) return [];
  const entries = Object.entries(map as Record<string, unknown>);
  const exact = entries.find(([pattern]) => pattern === key);
  if (exact) return leafTargets(exact[1]);
  // `"./locales/*": "./src/locales/*.ts"`: the longest matching prefix wins, as in Node.
  let best: { prefix: string; suffix: string; target: unknown } | undefined;
  for (const [pattern, target] of entries) {
    const star = pattern.indexOf('*');
    if (star < 0) continue;
    const prefix = pattern.slice(0, star);
    const suffix = pattern.slice(star + 1);
    if (!key.startsWith(prefix) || !key.endsWith(suffix) || key.length < prefix.length + suffix.length)
      continue;
    if (!best || prefix.length > best.prefix.length) best = { prefix, suffix, target };
  }
  if (!best) return [];
  const matched = key.slice(best.prefix.length, key.length - best.suffix.length);
  return leafTargets(best.target).map((target) => target.split('*').join(matched));
}

function hasSubpathKeys(map: unknown): boolean {
  return typeof map === 'object' && map !== null && Object.keys(map).some((key) => key.startsWith('.'));
}

/** Every string target under a conditions object or fallback array, in order. */
function leafTargets(value: unknown, depth = 0): string[] {
  if (typeof value === 'string') return [value];
  if (depth > 8 || typeof value !== 'object' || value === null) return [];
  const inner = Array.isArray(value) ? value : Object.values(value);
  return inner.flatMap((item) => leafTargets(item, depth + 1));
}

/** A target as written, then its sources: extension swaps, and build output mapped back to `rootDir`. */
function sourcesOf(file: string, build: Manifest['build']): string[] {
  const found = withSourceExtensions(file);
  if (build && (file === build.outDir || file.startsWith(`${build.outDir}/`) || build.outDir === '')) {
    const inside = build.outDir === '' ? file : file.slice(build.outDir.length + 1);
    for (const rootDir of build.rootDirs) {
      if (rootDir !== build.outDir) found.push(...withSourceExtensions(path.posix.join(rootDir, inside)));
    }
  }
  return found;
}

function withSourceExtensions(file: string): string[] {
  const extension = Object.keys(SOURCE_EXTENSIONS)
    .sort((a, b) => b.length - a.length)
    .find((candidate) => file.endsWith(candidate));
  if (!extension) return [file];
  const stem = file.slice(0, -extension.length);
  return [file, ...(SOURCE_EXTENSIONS[extension] ?? []).map((swap) => `${stem}${swap}`)];
}

/**
 * The package's build output folder and the source folders it is built from, root-relative, from
 * its tsconfig.json and the configs it extends. Without `rootDir`, TypeScript takes the common
 * folder of the sources: `src` and the package folder are tried.
 */
function buildFolders(root: string, folder: string): Manifest['build'] {
  let outDir: string | undefined;
  let rootDir: string | undefined;
  let config = path.join(root, folder, 'tsconfig.json');
  for (let depth = 0; depth < 5 && (outDir === undefined || rootDir === undefined); depth++) {
    const json = readJson(config);
    if (!json) break;
    const options = (json.compilerOptions ?? {}) as Record<string, unknown>;
    const at = (value: unknown) =>
      typeof value === 'string' ? path.relative(root, path.resolve(path.dirname(config), value)) : undefined;
    outDir ??= at(options.outDir);
    rootDir ??= at(options.rootDir);
    if (typeof json.extends !== 'string' || !json.extends.startsWith('.')) break;
    const extended = path.resolve(path.dirname(config), json.extends);
    config = extended.endsWith('.json') ? extended : `${extended}.json`;
  }
  if (outDir === undefined || outDir.startsWith('..')) return undefined;
  const posix = (value: string) => value.split(path.sep).join('/');
  const rootDirs =
    rootDir !== undefined && !rootDir.startsWith('..')
      ? [posix(rootDir)]
      : [path.posix.join(folder, 'src'), folder];
  return { outDir: posix(outDir), rootDirs };
}

/** A JSON file as an object, comments and trailing commas allowed (tsconfig.json has both). */
function readJson(file: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(withoutComments(text));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** JSON with `//` and `/* *\/` comments and trailing commas removed, strings left alone. */
function withoutComments(text: string): string {
  const kept: string[] = [];
  for (let at = 0; at < text.length; at++) {
    const char = text[at] as string;
    if (char === '"') {
      const end = stringEnd(text, at);
      kept.push(text.slice(at, end));
      at = end - 1;
    } else if (char === '/' && text[at + 1] === '/') {
      while (at < text.length && text[at] !== '\n') at++;
    } else if (char === '/' && text[at + 1] === '*') {
      const end = text.indexOf('*/', at + 2);
      at = end < 0 ? text.length : end + 1;
    } else if (!/\s/.test(char)) {
      kept.push(char);
    }
  }
  // Without comments and whitespace, a trailing comma is a comma right before a closing bracket.
  return kept
    .filter((token, at) => !(token === ',' && (kept[at + 1] === '}' || kept[at + 1] === ']')))
    .join('');
}

/** The index just past the string literal that starts at `start`. */
function stringEnd(text: string, start: number): number {
  let at = start + 1;
  while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
  return at + 1;
}
