import path from 'node:path';
import type { LanguageSpec } from './language-spec.js';

type ModuleStyle = LanguageSpec['moduleStyle'];

/**
 * The files an import specifier may mean, most likely first, as paths relative to the root
 * (posix separators). Only the syntax is used: relative specifiers, index files, extension
 * swaps (`./money.js` written for `money.ts`), and for Python relative and package imports
 * from the importing file's folder or the root. Bare package names resolve to nothing: code in
 * node_modules or site-packages is not indexed.
 */
export function moduleCandidates(style: ModuleStyle, fromFile: string, specifier: string): string[] {
  switch (style) {
    case 'python':
      return pythonCandidates(fromFile, specifier);
    case 'ecmascript':
      return ecmascriptCandidates(fromFile, specifier);
    case 'none':
      return [];
    case 'go':
    case 'rust':
    case 'java':
    case 'csharp':
      // A package or module of several files: resolve-packages.ts finds them from the files indexed.
      return [];
    default:
      return pathCandidates(style, fromFile, specifier);
  }
}

const SCRIPT_EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

function ecmascriptCandidates(fromFile: string, specifier: string): string[] {
  if (!specifier.startsWith('.') && !specifier.startsWith('/')) return [];
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier));
  if (base.startsWith('..')) return [];
  const stem = base.replace(/\.(m|c)?(j|t)sx?$/, '');
  const candidates = [base];
  for (const extension of SCRIPT_EXTENSIONS) candidates.push(stem + extension);
  for (const extension of SCRIPT_EXTENSIONS) candidates.push(path.posix.join(base, `index${extension}`));
  return [...new Set(candidates)];
}

function pythonCandidates(fromFile: string, specifier: string): string[] {
  const dots = /^\.*/.exec(specifier)?.[0].length ?? 0;
  const rest = specifier.slice(dots).split('.').filter(Boolean).join('/');
  const bases: string[] = [];
  if (dots > 0) {
    let folder = path.posix.dirname(fromFile);
    for (let level = 1; level < dots; level++) folder = path.posix.dirname(folder);
    bases.push(folder === '.' ? rest : path.posix.join(folder, rest));
  } else {
    // An absolute import is looked for from the root, from `src/`, and from beside the importer.
    bases.push(rest, path.posix.join('src', rest), path.posix.join(path.posix.dirname(fromFile), rest));
  }
  return bases.flatMap((base) => {
    const clean = path.posix.normalize(base || '.');
    if (clean.startsWith('..')) return [];
    const asFile = clean === '.' ? [] : [`${clean}.py`, `${clean}.pyi`];
    return [...asFile, path.posix.join(clean, '__init__.py'), path.posix.join(clean, '__init__.pyi')];
  });
}

/** Python `from . import models`: a name after the module may itself be a submodule. */
export function submoduleSpecifier(style: ModuleStyle, specifier: string, name: string): string | undefined {
  if (style !== 'python') return undefined;
  return specifier.endsWith('.') ? `${specifier}${name}` : `${specifier}.${name}`;
}

const EXTENSION: Record<'c' | 'ruby' | 'php' | 'bash', string> = {
  c: '',
  ruby: '.rb',
  php: '.php',
  bash: '',
};
/** Where projects keep what `#include <x.h>`, `require 'x'` and PSR-4 autoloading find without a path. */
const SEARCH_FOLDERS: Record<'c' | 'ruby' | 'php' | 'bash', string[]> = {
  c: ['include', '', 'src'],
  ruby: ['lib', '', 'app'],
  php: ['', 'src', 'lib', 'app'],
  bash: [''],
};

/** The file a specifier names, before any folder is tried: PHP `Bank\\Money` is `Bank/Money.php`, Ruby `bank/money` is `bank/money.rb`. */
function modulePath(style: 'c' | 'ruby' | 'php' | 'bash', specifier: string): string {
  const written =
    style === 'php' && !specifier.includes('/')
      ? specifier.replace(/^\\/, '').split('\\').join('/')
      : specifier;
  const extension = EXTENSION[style];
  return extension && !written.endsWith(extension) ? `${written}${extension}` : written;
}

/**
 * C includes, Ruby requires, PHP includes and `use` names, Bash sources: a path beside the
 * importing file when it starts with `./` or `../` (then from the root, as scripts run from it
 * often write), else from the usual source folders.
 */
function pathCandidates(style: 'c' | 'ruby' | 'php' | 'bash', fromFile: string, specifier: string): string[] {
  const file = modulePath(style, specifier);
  const bases = /^\.{1,2}\//.test(file)
    ? [path.posix.join(path.posix.dirname(fromFile), file), file]
    : SEARCH_FOLDERS[style].map((folder) => path.posix.join(folder, file));
  return [
    ...new Set(bases.map((base) => path.posix.normalize(base)).filter((base) => !base.startsWith('..'))),
  ];
}

/**
 * What to look for at the end of any path in the tree when no candidate file exists, longest
 * first: `#include "bank/money.h"` may be under any include folder; `use Bank\Accounts\Account`
 * may be `src/Accounts/Account.php` (a PSR-4 prefix mapped to a folder) or `app/Accounts/Account.php`.
 */
export function moduleSuffixes(style: ModuleStyle, specifier: string): string[] {
  if (style !== 'c' && style !== 'ruby' && style !== 'php') return [];
  const parts = modulePath(style, specifier)
    .split('/')
    .filter((part) => part && part !== '.' && part !== '..');
  if (parts.length === 0) return [];
  if (style !== 'php') return [parts.join('/')];
  return parts.map((_, start) => parts.slice(start).join('/'));
}

/**
 * The import that would load a class by its qualified name, where the language autoloads by
 * convention: PHP `Bank.Money` → `Bank\Money` (PSR-4), Ruby `Bank.Money` → `bank/money` (Zeitwerk).
 */
export function autoloadSpecifier(style: ModuleStyle, qualifiedName: string): string | undefined {
  if (style === 'php') return qualifiedName.split('.').join('\\');
  if (style !== 'ruby') return undefined;
  return qualifiedName
    .split('.')
    .map((part) => part.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase())
    .join('/');
}

/** A Go module under the root: the folder its go.mod is in, and the module path it declares. */
export interface GoModule {
  folder: string;
  path: string;
}

/**
 * The folders a Go import path may name, most likely first: under the module whose path is the
 * longest prefix of it (`example.com/bank/money` in module `example.com/bank` → `money`), then
 * in the vendor folder of the importing file's own module.
 */
export function goImportFolders(
  importPath: string,
  modules: readonly GoModule[],
  fromFile: string,
): string[] {
  const folders: string[] = [];
  for (const module of [...modules].sort((a, b) => b.path.length - a.path.length)) {
    if (importPath === module.path || importPath.startsWith(`${module.path}/`)) {
      folders.push(path.posix.join(module.folder, importPath.slice(module.path.length + 1)));
    }
  }
  const home = modules
    .filter((module) => module.folder === '.' || fromFile.startsWith(`${module.folder}/`))
    .sort((a, b) => b.folder.length - a.folder.length)[0];
  if (home) folders.push(path.posix.join(home.folder, 'vendor', importPath));
  return folders.map((folder) => path.posix.normalize(folder));
}

/**
 * The files that may hold the Rust module at `segments` of a crate whose root (lib.rs or
 * main.rs) is in `crateFolder`: `money` → money.rs or money/mod.rs.
 */
export function rustModuleFiles(crateFolder: string, segments: readonly string[]): string[] {
  if (segments.length === 0) return ['lib.rs', 'main.rs'].map((root) => path.posix.join(crateFolder, root));
  const base = path.posix.join(crateFolder, ...segments);
  return [`${base}.rs`, path.posix.join(base, 'mod.rs')];
}

/** The module a Rust file is, under its crate's folder: `accounts/savings.rs` and `accounts/savings/mod.rs` → accounts, savings. */
export function rustModulePath(file: string, crateFolder: string): string[] {
  const parts = path.posix.relative(crateFolder, file).replace(/\.rs$/, '').split('/').filter(Boolean);
  if (parts.length === 1 && (parts[0] === 'lib' || parts[0] === 'main')) return [];
  if (parts.at(-1) === 'mod') parts.pop();
  return parts;
}
