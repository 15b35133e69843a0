import type { Repository } from './repository.js';
import { withheldReason } from './withheld-secrets.js';

export interface GrepMatch {
  path: string;
  line: number;
  column: number;
  text: string;
}

export interface GrepQuery {
  pattern: string;
  regex: boolean;
  ignoreCase: boolean;
  /** A verified full hash; without it the tracked files of the work tree are searched. */
  commit?: string;
  paths: readonly string[];
  signal?: AbortSignal;
}

/** The longest match line kept; longer ones are cut (minified files). */
const MAX_LINE_CHARS = 2000;

/** Reads one `git grep --null -n --column` line: "[rev:]path\0line\0column\0text". */
export function parseGrepLine(line: string, commit: string | undefined): GrepMatch | undefined {
  const [named, lineNumber, column, ...text] = line.split('\0');
  if (named === undefined || lineNumber === undefined || column === undefined) return undefined;
  const content = text.join('\0');
  return {
    path: commit && named.startsWith(`${commit}:`) ? named.slice(commit.length + 1) : named,
    line: Number(lineNumber),
    column: Number(column),
    text: content.length > MAX_LINE_CHARS ? `${content.slice(0, MAX_LINE_CHARS)}…` : content,
  };
}

/** Characters with a meaning in a POSIX extended regular expression. */
const ERE_SPECIAL = /[.[\]()*+?{}|^$\\]/g;

/**
 * The search options and pattern. The pattern follows `-e`, so git never reads it as an option;
 * simple-git's argument guard, though, reads any argument beginning with "-" as one, and would
 * refuse "-O2" as `grep -O` or "--exec" as a pack program. Such a pattern is given as the
 * extended regular expression that matches exactly what it means (a literal string escaped),
 * beginning with "[-]", one atom matching "-" as "-" does, so any quantifier after it still applies.
 */
export function patternArguments(pattern: string, regex: boolean): string[] {
  if (!pattern.startsWith('-')) return [regex ? '--extended-regexp' : '--fixed-strings', '-e', pattern];
  const expression = regex ? pattern : pattern.replace(ERE_SPECIAL, '\\$&');
  return ['--extended-regexp', '-e', `[-]${expression.slice(1)}`];
}

/**
 * Streams the matches of a search through tracked content to `visit`, which returns false once
 * it has what it needs; git is stopped then. Lines of secret files are never matches.
 */
export async function grepTracked(
  repository: Repository,
  query: GrepQuery,
  visit: (match: GrepMatch) => boolean,
): Promise<{ stoppedEarly: boolean }> {
  return repository.lines(
    {
      args: [
        'grep',
        '--null',
        '--line-number',
        '--column',
        '-I',
        '--no-color',
        '--full-name',
        '--no-textconv',
        ...(query.ignoreCase ? ['--ignore-case'] : []),
        ...patternArguments(query.pattern, query.regex),
        ...(query.commit ? [query.commit] : []),
        '--',
        ...query.paths,
      ],
      // 1: nothing matched.
      exitCodes: [0, 1],
      ...(query.signal && { signal: query.signal }),
    },
    (line) => {
      const match = parseGrepLine(line, query.commit);
      return match && !withheldReason(match.path) ? visit(match) : true;
    },
  );
}
