import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isInside } from '@toolmesh/core';
import { findOnPath } from './find-bwrap.js';

function realpathOrUndefined(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * A folder so wide that binding it would hand the sandbox the user's files: the filesystem
 * root, or the home folder and everything above it (a stray ~/package.json must not make the
 * whole home a "package").
 */
function tooWide(folder: string): boolean {
  return folder === path.parse(folder).root || isInside(folder, os.homedir());
}

/** Whether `folder` is a package installed in a node_modules folder (`node_modules/x`, `node_modules/@s/x`). */
function isInstalledPackage(folder: string): boolean {
  const parent = path.dirname(folder);
  if (path.basename(parent) === 'node_modules') return true;
  return path.basename(parent).startsWith('@') && path.basename(path.dirname(parent)) === 'node_modules';
}

/** The folder of the package that holds `file`, if any; see `packageFolderOf`. */
export function packageRootOf(file: string): string | undefined {
  return packageFolderOf(path.dirname(file));
}

/**
 * The package `folder` belongs to: the nearest folder from it upwards with a package.json, never
 * climbing out of a node_modules folder nor reaching a folder too wide to bind; undefined when
 * there is none, so that a caller binds only what it must and never a folder like home or /tmp.
 */
function packageFolderOf(folder: string): string | undefined {
  for (let current = folder; ; current = path.dirname(current)) {
    if (tooWide(current) || path.basename(current) === 'node_modules') return undefined;
    if (isInstalledPackage(current) || existsSync(path.join(current, 'package.json'))) return current;
    if (path.dirname(current) === current) return undefined;
  }
}

/** The packages a node_modules folder links to from elsewhere (pnpm links, workspace packages). */
function linkedPackages(nodeModules: string): string[] {
  const linked: string[] = [];
  const visit = (folder: string) => {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const entry = path.join(folder, name);
      if (name.startsWith('@') && folder === nodeModules) {
        visit(entry);
        continue;
      }
      try {
        if (!lstatSync(entry).isSymbolicLink()) continue;
      } catch {
        continue;
      }
      const target = realpathOrUndefined(entry);
      if (target) linked.push(target);
    }
  };
  visit(nodeModules);
  return linked;
}

/** Keeps the outermost folders: a folder inside another one is already covered by it. */
export function outermost(folders: Iterable<string>): string[] {
  const sorted = [...new Set(folders)].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const folder of sorted) if (!kept.some((outer) => isInside(outer, folder))) kept.push(folder);
  return kept;
}

/**
 * Every path a program needs to run, by real path: its package, the node_modules folders its
 * package resolves modules from (its own and each ancestor's), and each package they link to
 * from outside them, followed through their own node_modules in turn. pnpm lays a workspace out
 * as symlinks into node_modules/.pnpm and into sibling packages, so binding the program's
 * package alone would leave its imports dangling. A file in no package (a script in home or
 * /tmp) is bound alone: its folder holds the user's other files.
 */
export function programPaths(programFiles: readonly string[]): string[] {
  const paths = new Set<string>();
  const covered = (folder: string) => [...paths].some((known) => isInside(known, folder));
  const queue: string[] = [];
  const addPackage = (root: string) => {
    if (covered(root)) return;
    paths.add(root);
    queue.push(root);
  };
  for (const file of programFiles) {
    const real = realpathOrUndefined(file);
    if (!real) continue;
    const packageRoot = packageRootOf(real);
    if (packageRoot) addPackage(packageRoot);
    else paths.add(real);
  }
  while (queue.length > 0) {
    const root = queue.shift() as string;
    const resolvedFrom: string[] = [];
    for (let folder = root; ; folder = path.dirname(folder)) {
      const nodeModules = realpathOrUndefined(path.join(folder, 'node_modules'));
      if (nodeModules) resolvedFrom.push(nodeModules);
      if (path.dirname(folder) === folder) break;
    }
    // Every node_modules first, so a link into one of them needs no bind of its own.
    for (const nodeModules of resolvedFrom) if (!covered(nodeModules)) paths.add(nodeModules);
    for (const nodeModules of resolvedFrom)
      for (const target of linkedPackages(nodeModules)) {
        // A link to a folder that is no package is bound as it is, unless that hands out home or /.
        const linked = packageFolderOf(target) ?? (tooWide(target) ? undefined : target);
        if (linked) addPackage(linked);
      }
  }
  return outermost(paths);
}

/** The host path of `command` as the sandbox's exec would find it: as given, or on PATH. */
export function resolveCommand(
  command: string,
  searchPath: string | undefined,
  cwd: string,
): string | undefined {
  if (command.includes('/')) {
    const file = path.resolve(cwd, command);
    return isFile(file) ? file : undefined;
  }
  return findOnPath(command, searchPath);
}

/**
 * The files that make up a command line's program: the command itself and, when its first
 * argument is a script file (`node server.js`), that script.
 */
export function programFiles(
  command: string,
  args: readonly string[],
  options: { searchPath: string | undefined; cwd: string },
): string[] {
  const files: string[] = [];
  const resolved = resolveCommand(command, options.searchPath, options.cwd);
  if (resolved) files.push(resolved);
  const [first] = args;
  const script = first !== undefined && !first.startsWith('-') ? path.resolve(options.cwd, first) : undefined;
  if (script && isFile(script)) files.push(script);
  return files;
}

/**
 * The folder of the Node binary that runs the aggregator, or its install prefix when it sits
 * in `<prefix>/bin` (npx and npm live in `<prefix>/lib/node_modules`): servers run with that same
 * Node, and scripts with a `#!/usr/bin/env node` line look it up on PATH.
 */
export function nodePaths(execPath: string = process.execPath): string[] {
  const node = realpathOrUndefined(execPath) ?? execPath;
  const binFolder = path.dirname(node);
  const prefix = path.dirname(binFolder);
  if (path.basename(binFolder) === 'bin' && !tooWide(prefix)) return [prefix];
  // A node in home or / itself: the binary alone, not the folder beside it.
  return tooWide(binFolder) ? [node] : [binFolder];
}
