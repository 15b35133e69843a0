import path from 'node:path';

/**
 * The files an import specifier may mean, most likely first, as paths relative to the root
 * (posix separators). Only the syntax is used: relative specifiers, index files, extension
 * swaps (`./money.js` written for `money.ts`), and for Python relative and package imports
 * from the importing file's folder or the root. Bare package names resolve to nothing: code in
 * node_modules or site-packages is not indexed.
 */
export function moduleCandidates(
  style: 'ecmascript' | 'python',
  fromFile: string,
  specifier: string,
): string[] {
  return style === 'python'
    ? pythonCandidates(fromFile, specifier)
    : ecmascriptCandidates(fromFile, specifier);
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
export function submoduleSpecifier(
  style: 'ecmascript' | 'python',
  specifier: string,
  name: string,
): string | undefined {
  if (style !== 'python') return undefined;
  return specifier.endsWith('.') ? `${specifier}${name}` : `${specifier}.${name}`;
}
