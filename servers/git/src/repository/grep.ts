import type { Repository } from './repository.js';

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

/**
 * Streams the matches of a search through tracked content to `visit`, which returns false once
 * it has what it needs; git is stopped then. The pattern is the value of `-e`, so it may begin
 * with "-" without being read as an option.
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
        query.regex ? '--extended-regexp' : '--fixed-strings',
        ...(query.ignoreCase ? ['--ignore-case'] : []),
        '-e',
        query.pattern,
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
      return match ? visit(match) : true;
    },
  );
}
