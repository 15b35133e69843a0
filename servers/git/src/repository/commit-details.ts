import type { Repository } from './repository.js';
import { emptyTree } from './revisions.js';

export interface CommitDetails {
  hash: string;
  parents: string[];
  author: string;
  email: string;
  date: string;
  committer: string;
  committerEmail: string;
  committerDate: string;
  subject: string;
  body: string;
}

const FIELD = '\x1f';
const FORMAT = ['%H', '%P', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%s', '%b'].join(FIELD);

/** One commit's metadata; `commit` is a verified full hash. */
export async function readCommit(repository: Repository, commit: string): Promise<CommitDetails> {
  const output = await repository.output([
    'show',
    '--no-patch',
    `--format=${FORMAT}`,
    '--end-of-options',
    commit,
    '--',
  ]);
  const [hash, parents, author, email, date, committer, committerEmail, committerDate, subject, ...body] =
    output.split(FIELD);
  return {
    hash: hash as string,
    parents: parents ? parents.split(' ') : [],
    author: author as string,
    email: email as string,
    date: date as string,
    committer: committer as string,
    committerEmail: committerEmail as string,
    committerDate: committerDate as string,
    subject: subject as string,
    body: body.join(FIELD).trimEnd(),
  };
}

/** What a commit is shown against: its first parent, or the empty tree for a root commit. */
export async function baseOf(repository: Repository, details: CommitDetails): Promise<string> {
  return details.parents[0] ?? (await emptyTree(repository));
}
