import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { SECRET_FILE_GLOBS } from './secret-files.js';
import { errnoCode, ToolError } from './tool-error.js';

export type PathIntent = 'read' | 'write';

/** Globs of paths refused for each intent; a `!glob` exempts what the globs before it name. */
export interface DenyRules {
  read: string[];
  write: string[];
}

/**
 * Secret files are neither read nor written; `.git` internals are readable but never written, so
 * their globs come after the secret files' `!glob` exemptions (a `.git/hooks/*.sample` stays theirs).
 */
export const DEFAULT_DENY: DenyRules = {
  read: [...SECRET_FILE_GLOBS],
  write: [...SECRET_FILE_GLOBS, '**/.git', '**/.git/**'],
};

/**
 * One compiled matcher per set of globs for the process: a guard is made per session, and per
 * request for a 2026-07-28 client, and compiling the same globs each time cost more than the call.
 */
const compiledDenyRules = new Map<string, (relative: string) => string | undefined>();

/**
 * A test of deny globs: the glob that denies `relative` (a path relative to a root, forward
 * slashes), or undefined. A `!glob` exempts what the globs before it name.
 */
export function denyMatcher(globs: readonly string[]): (relative: string) => string | undefined {
  const key = globs.join('\n');
  let matcher = compiledDenyRules.get(key);
  if (!matcher) {
    matcher = compileDenyRules(globs);
    compiledDenyRules.set(key, matcher);
  }
  return matcher;
}

function compileDenyRules(globs: readonly string[]): (relative: string) => string | undefined {
  const matchers = globs.flatMap((glob, index) => {
    if (glob.startsWith('!')) return [];
    const exempt = globs
      .slice(index + 1)
      .filter((later) => later.startsWith('!'))
      .map((later) => later.slice(1));
    return [
      {
        glob,
        test: picomatch(glob, { dot: true, nocase: process.platform === 'darwin', ignore: exempt }),
      },
    ];
  });
  return (relative) => matchers.find((matcher) => matcher.test(relative))?.glob;
}

export class PathRefusal extends ToolError {
  constructor(
    readonly rule: string,
    message: string,
  ) {
    super(`${message} (rule: ${rule})`, 'path_refused');
  }
}

export interface ResolvedPath {
  /** The real absolute path to operate on: every symlink on the way already resolved. */
  absolute: string;
  /** The real root that holds it. */
  root: string;
  /** Relative to `root`, with forward slashes; '' for the root itself. */
  relative: string;
}

interface Root {
  lexical: string;
  real: string;
}

// Characters that Unicode compatibility folding turns into path syntax ('.', '/', '\'), plus
// slash look-alikes that have no folding: a path using them is a disguise, not a file name.
const SLASH_LOOKALIKES = /[\u2044\u2215\u2571\u29f8\u29f9\u3033\uff3c]/u;
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u;
const CONTROL = /[\u0001-\u001f\u007f]/u;
const MAX_SYMLINK_HOPS = 40;

export function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return (
    relative === '' ||
    (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  );
}

function toPosix(relative: string): string {
  return path.sep === '/' ? relative : relative.split(path.sep).join('/');
}

function foldsToPathSyntax(input: string): boolean {
  for (const char of input) {
    if (char.charCodeAt(0) < 0x80) continue;
    if (/[./\\]/.test(char.normalize('NFKC'))) return true;
  }
  return SLASH_LOOKALIKES.test(input);
}

/**
 * Real path of `target` even when its tail does not exist yet: existing parts are resolved by
 * the OS, a dangling symlink by reading its target, the missing rest is appended as written.
 */
function realpathLoose(target: string, hops = 0): string {
  if (hops > MAX_SYMLINK_HOPS) {
    throw new PathRefusal('symlink-loop', `Path "${target}" refused: too many levels of symlinks`);
  }
  try {
    return realpathSync.native(target);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT' && errnoCode(error) !== 'ENOTDIR') throw error;
  }
  const parent = path.dirname(target);
  if (parent === target) return target;
  let isLink = false;
  try {
    isLink = lstatSync(target).isSymbolicLink();
  } catch {
    isLink = false;
  }
  if (isLink) {
    return realpathLoose(path.resolve(parent, readlinkSync(target)), hops + 1);
  }
  return path.join(realpathLoose(parent, hops), path.basename(target));
}

/**
 * Confines paths to a set of roots. Every refusal names the rule that refused, so a model (or
 * a person reading the audit log) knows what to change.
 */
export class PathGuard {
  readonly roots: readonly Root[];
  private readonly denyMatchers: Record<PathIntent, (relative: string) => string | undefined>;

  constructor(roots: readonly string[], deny: DenyRules = DEFAULT_DENY) {
    this.roots = roots.map((root) => {
      const lexical = path.resolve(root);
      return { lexical, real: realpathSync.native(lexical) };
    });
    this.denyMatchers = { read: denyMatcher(deny.read), write: denyMatcher(deny.write) };
  }

  get realRoots(): string[] {
    return this.roots.map((root) => root.real);
  }

  private describeRoots(): string {
    return this.roots.map((root) => root.real).join(', ');
  }

  private checkCharacters(input: string): void {
    if (input.includes('\0')) {
      throw new PathRefusal('nul-byte', 'Path refused: it contains a NUL byte. Pass a plain path');
    }
    if (CONTROL.test(input)) {
      throw new PathRefusal(
        'control-character',
        'Path refused: it contains a control character. Pass a plain path',
      );
    }
    if (INVISIBLE.test(input)) {
      throw new PathRefusal(
        'invisible-character',
        `Path "${input}" refused: it contains an invisible or text-direction character. Retype the path without it`,
      );
    }
    if (foldsToPathSyntax(input)) {
      throw new PathRefusal(
        'unicode-lookalike',
        `Path "${input}" refused: it contains a Unicode look-alike of '.', '/' or '\\'. Use the ASCII characters`,
      );
    }
  }

  /**
   * Resolves `input` (absolute, or relative to the first root) for reading or writing.
   * `followFinalSymlink: false` keeps a final symlink itself as the target (for lstat and for
   * writes that replace the link rather than write through it).
   */
  resolve(input: string, intent: PathIntent, options: { followFinalSymlink?: boolean } = {}): ResolvedPath {
    if (typeof input !== 'string' || input.length === 0) {
      throw new PathRefusal('empty', 'Path refused: it is empty. Pass a path inside the roots');
    }
    this.checkCharacters(input);
    const [primary] = this.roots;
    if (!primary) {
      throw new PathRefusal('no-roots', 'No root is configured: start the server with --root DIR');
    }
    const lexical = path.isAbsolute(input) ? path.resolve(input) : path.resolve(primary.lexical, input);
    const lexicalRoot = this.roots.find(
      (root) => isInside(root.lexical, lexical) || isInside(root.real, lexical),
    );
    if (!lexicalRoot) {
      const traversal = !path.isAbsolute(input) && input.split(/[\\/]/).includes('..');
      throw new PathRefusal(
        traversal ? 'traversal' : 'outside-roots',
        `Path "${input}" refused: it resolves to ${lexical}, outside the allowed roots (${this.describeRoots()}). Use a path inside a root`,
      );
    }

    const follow = options.followFinalSymlink ?? true;
    const real = follow
      ? realpathLoose(lexical)
      : path.join(realpathLoose(path.dirname(lexical)), path.basename(lexical));
    const realRoot = this.roots.find((root) => isInside(root.real, real));
    if (!realRoot) {
      throw new PathRefusal(
        'symlink-escape',
        `Path "${input}" refused: it passes through a symlink that leads to ${real}, outside the allowed roots (${this.describeRoots()})`,
      );
    }
    const relative = toPosix(path.relative(realRoot.real, real));
    const lexicalRelative = toPosix(
      path.relative(isInside(lexicalRoot.lexical, lexical) ? lexicalRoot.lexical : lexicalRoot.real, lexical),
    );
    for (const candidate of new Set([relative, lexicalRelative])) {
      if (candidate === '') continue;
      const matched = this.denyMatchers[intent](candidate);
      if (matched) {
        throw new PathRefusal(
          `deny-${intent}`,
          `Path "${input}" refused: ${intent === 'read' ? 'reading' : 'writing'} "${candidate}" is denied by the pattern "${matched}". Choose another path, or change the server's deny rules`,
        );
      }
    }
    return { absolute: real, root: realRoot.real, relative };
  }

  /** Whether a path relative to a root is denied for `intent`; for filtering walk results. */
  isDenied(relative: string, intent: PathIntent): boolean {
    return this.denyMatchers[intent](relative) !== undefined;
  }
}
