import type { Repository } from './repository.js';

export type RefType = 'local' | 'remote' | 'tag';

export interface BranchEntry {
  name: string;
  type: RefType;
  current: boolean;
  /** The commit it points at (a tag: the commit it tags). */
  commit: string;
  date: string;
  subject: string;
  upstream?: string;
  ahead?: number;
  behind?: number;
  /** The upstream it tracks no longer exists. */
  upstreamGone?: boolean;
}

const FIELDS = [
  '%(refname)',
  '%(objectname)',
  '%(*objectname)',
  '%(HEAD)',
  '%(upstream:short)',
  '%(upstream:track)',
  '%(committerdate:iso-strict)',
  '%(*committerdate:iso-strict)',
  '%(subject)',
  '%(*subject)',
  '%(symref)',
];

const PREFIXES: [string, RefType][] = [
  ['refs/heads/', 'local'],
  ['refs/remotes/', 'remote'],
  ['refs/tags/', 'tag'],
];

/** Reads for-each-ref output in FIELDS, one record per "\0\n". */
export function parseRefs(output: string): BranchEntry[] {
  const entries: BranchEntry[] = [];
  for (const record of output.split('\0\n')) {
    if (record === '') continue;
    const [ref, object, peeled, head, upstream, track, date, peeledDate, subject, peeledSubject, symref] =
      record.split('\0') as string[];
    // refs/remotes/origin/HEAD only names the remote's default branch.
    if (symref) continue;
    const prefix = PREFIXES.find(([start]) => ref?.startsWith(start));
    if (!prefix || !ref) continue;
    const entry: BranchEntry = {
      name: ref.slice(prefix[0].length),
      type: prefix[1],
      current: head === '*',
      commit: peeled || (object as string),
      date: peeledDate || (date as string),
      subject: peeledSubject || (subject as string),
    };
    if (upstream) {
      entry.upstream = upstream;
      if (track === '[gone]') entry.upstreamGone = true;
      entry.ahead = Number(/ahead (\d+)/.exec(track ?? '')?.[1] ?? 0);
      entry.behind = Number(/behind (\d+)/.exec(track ?? '')?.[1] ?? 0);
    }
    entries.push(entry);
  }
  return entries;
}

export async function listRefs(repository: Repository, types: readonly RefType[]): Promise<BranchEntry[]> {
  const patterns = PREFIXES.filter(([, type]) => types.includes(type)).map(([start]) => start.slice(0, -1));
  if (patterns.length === 0) return [];
  const output = await repository.output([
    'for-each-ref',
    `--format=${FIELDS.join('%00')}%00`,
    '--end-of-options',
    ...patterns,
  ]);
  return parseRefs(output);
}
