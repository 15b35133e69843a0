import { ToolError } from '@toolmesh/core';
import { GitFailure } from './git-process.js';
import type { Repository } from './repository.js';
import { withheldReason } from './withheld-secrets.js';

export interface BlameLine {
  line: number;
  commit: string;
  author: string;
  email: string;
  date: string;
  summary: string;
  text: string;
  /** True for lines not committed yet (blaming the work tree). */
  uncommitted: boolean;
}

/** Reads `git blame --line-porcelain`: a header per line, then the line itself after a tab. */
export function parseBlame(output: string): BlameLine[] {
  const lines: BlameLine[] = [];
  let current: Partial<BlameLine> & { time?: number } = {};
  for (const row of output.split('\n')) {
    const opened = /^([0-9a-f]{40,64}) \d+ (\d+)/.exec(row);
    if (opened) {
      current = { commit: opened[1] as string, line: Number(opened[2]) };
      continue;
    }
    if (row.startsWith('\t')) {
      const commit = current.commit ?? '';
      lines.push({
        line: current.line ?? 0,
        commit,
        author: current.author ?? '',
        email: current.email ?? '',
        date: current.time === undefined ? '' : new Date(current.time * 1000).toISOString(),
        summary: current.summary ?? '',
        text: row.slice(1),
        uncommitted: /^0+$/.test(commit),
      });
      continue;
    }
    const space = row.indexOf(' ');
    const key = space < 0 ? row : row.slice(0, space);
    const value = space < 0 ? '' : row.slice(space + 1);
    if (key === 'author') current.author = value;
    else if (key === 'author-mail') current.email = value.replace(/^<|>$/g, '');
    else if (key === 'author-time') current.time = Number(value);
    else if (key === 'summary') current.summary = value;
  }
  return lines;
}

/**
 * Who last changed each line of `startLine..endLine`: at a verified commit, or in the work tree
 * (uncommitted lines show as such). `git blame` takes no --end-of-options, so the revision is
 * always a full hash and the path follows `--`.
 */
export async function blameLines(
  repository: Repository,
  file: string,
  range: { startLine: number; endLine: number },
  commit: string | undefined,
  signal?: AbortSignal,
): Promise<BlameLine[]> {
  const withheld = withheldReason(file);
  if (withheld) throw new ToolError(`Blame refused: ${withheld}.`, 'secret_file');
  const run = (endLine: number) =>
    repository.output(
      [
        'blame',
        '--line-porcelain',
        '--no-textconv',
        `-L${range.startLine},${endLine}`,
        ...(commit ? [commit] : []),
        '--',
        file,
      ],
      { ...(signal && { signal }) },
    );
  try {
    return parseBlame(await run(range.endLine));
  } catch (error) {
    // A range running past the end is cut at the end; one starting past it is an error.
    const length = error instanceof GitFailure ? /has only (\d+) lines?/.exec(error.stderr)?.[1] : undefined;
    if (length === undefined) throw error;
    if (Number(length) < range.startLine) {
      throw new ToolError(
        `${file} has only ${length} lines: startLine must be at most ${length}.`,
        'bad_arguments',
      );
    }
    return parseBlame(await run(Number(length)));
  }
}
