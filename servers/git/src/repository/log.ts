import { ToolError } from '@toolmesh/core';
import type { Repository } from './repository.js';

export interface ChangedFile {
  path: string;
  oldPath?: string;
  added: number | null;
  removed: number | null;
}

export interface CommitSummary {
  hash: string;
  shortHash: string;
  author: string;
  email: string;
  date: string;
  parents: string[];
  subject: string;
  filesChanged: number;
  files: ChangedFile[];
}

export interface LogQuery {
  /** Full hash to start from (verified); default HEAD. */
  from?: string;
  path?: string;
  author?: string;
  since?: string;
  until?: string;
  grep?: string;
  limit: number;
  skip: number;
  signal?: AbortSignal;
}

const RECORD = '\x1e';
const FIELD = '\x1f';
const FORMAT = `--format=${RECORD}%H${FIELD}%h${FIELD}%an${FIELD}%ae${FIELD}%aI${FIELD}%P${FIELD}%s`;

/** numstat -z records: "a\td\tpath" or, for a rename, "a\td\t" then the old and new path. */
export function parseNumstat(tokens: readonly string[]): ChangedFile[] {
  const files: ChangedFile[] = [];
  for (let index = 0; index < tokens.length; index++) {
    const record = tokens[index] as string;
    if (record === '') continue;
    const [added, removed, ...rest] = record.split('\t');
    const binary = added === '-';
    const counts = { added: binary ? null : Number(added), removed: binary ? null : Number(removed) };
    const named = rest.join('\t');
    if (named === '') {
      const oldPath = tokens[index + 1] as string;
      const path = tokens[index + 2] as string;
      index += 2;
      files.push({ path, oldPath, ...counts });
    } else files.push({ path: named, ...counts });
  }
  return files;
}

/** Reads `git log` output in FORMAT with `--numstat -z`. */
export function parseLog(output: string): CommitSummary[] {
  return output
    .split(RECORD)
    .filter(Boolean)
    .map((record) => {
      const end = record.indexOf('\0');
      const header = end < 0 ? record : record.slice(0, end);
      const [hash, shortHash, author, email, date, parents, ...subject] = header.split(FIELD);
      const files =
        end < 0
          ? []
          : parseNumstat(
              record
                .slice(end + 1)
                .replace(/^\n/, '')
                .split('\0'),
            );
      return {
        hash: hash as string,
        shortHash: shortHash as string,
        author: author as string,
        email: email as string,
        date: date as string,
        parents: parents ? parents.split(' ') : [],
        subject: subject.join(FIELD).replace(/\n$/, ''),
        filesChanged: files.length,
        files,
      };
    });
}

const CONTROL = /[\u0000-\u001f\u007f]/u;

/** Filter values are glued to their option (`--author=…`); still, none may be taken for an option. */
function filterValue(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.startsWith('-') || CONTROL.test(value) || value.length > 200) {
    throw new ToolError(
      `\`${name}\` "${value}" refused: it must be plain text of at most 200 characters, not beginning with "-".`,
      'bad_arguments',
    );
  }
  return value;
}

export async function readLog(repository: Repository, query: LogQuery): Promise<CommitSummary[]> {
  const filters = (
    [
      ['author', query.author],
      ['since', query.since],
      ['until', query.until],
      ['grep', query.grep],
    ] as const
  ).flatMap(([name, value]) => {
    const checked = filterValue(name, value);
    return checked === undefined ? [] : [`--${name}=${checked}`];
  });
  const output = await repository.output(
    [
      'log',
      '--no-ext-diff',
      '--no-textconv',
      '--no-color',
      FORMAT,
      '--numstat',
      '-z',
      '-M',
      `--max-count=${query.limit}`,
      `--skip=${query.skip}`,
      ...filters,
      '--end-of-options',
      query.from ?? 'HEAD',
      '--',
      ...(query.path ? [query.path] : []),
    ],
    { ...(query.signal && { signal: query.signal }) },
  );
  return parseLog(output);
}
