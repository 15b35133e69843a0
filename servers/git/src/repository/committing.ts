import { ToolError } from '@toolmesh/core';
import type { Comparison } from './comparison.js';
import { resolveComparison } from './comparison.js';
import { diffSummary, type FileSummary } from './diff-summary.js';
import { GitFailure } from './git-process.js';
import type { Repository } from './repository.js';
import { headCommit } from './revisions.js';
import { type SecretFinding, scanMessage, scanStagedChanges } from './secret-scan.js';

export interface Author {
  name: string;
  email: string;
}

export interface CommitOutcome {
  commit: string;
  files: FileSummary[];
}

const CONTROL = /[\u0000-\u001f\u007f<>]/u;

function authorArgument(author: Author | undefined): string[] {
  if (!author) return [];
  if (CONTROL.test(author.name) || CONTROL.test(author.email) || !/^[^@\s]+@[^@\s]+$/.test(author.email)) {
    throw new ToolError(
      'author refused: the name may not contain "<", ">" or control characters, and the email must look like name@host.',
      'bad_arguments',
    );
  }
  return [`--author=${author.name} <${author.email}>`];
}

function describeFindings(findings: readonly SecretFinding[]): string {
  const lines = findings.map(
    (finding) => `- ${finding.path}${finding.line === null ? '' : `:${finding.line}`}: ${finding.rule}`,
  );
  const files = [
    ...new Set(findings.map((finding) => finding.path).filter((file) => file !== '(commit message)')),
  ];
  return [
    'Commit refused: the staged changes look like they contain secrets (the values are not shown):',
    ...lines,
    files.length > 0
      ? `Unstage ${files.length === 1 ? 'that file' : 'those files'} with git_stage action=unstage paths=${JSON.stringify(files)}, remove the secret (keep it in an untracked, ignored file or a secret store), stage again and commit.`
      : 'Remove the secret from the commit message and commit again.',
  ].join('\n');
}

/** With no identity in the git config, the author given is the committer too. */
async function committerFallback(
  repository: Repository,
  author: Author | undefined,
): Promise<[string, string][]> {
  if (!author) return [];
  const known = await repository.git({ args: ['var', 'GIT_COMMITTER_IDENT'], exitCodes: [0, 128] });
  return known.exitCode === 0
    ? []
    : [
        ['user.name', author.name],
        ['user.email', author.email],
      ];
}

/**
 * Commits what is staged, after refusing anything that looks like a secret. Hooks never run
 * (the hooks path is /dev/null and --no-verify is passed) and nothing is signed.
 */
export async function commitStaged(
  repository: Repository,
  message: string,
  author: Author | undefined,
  signal?: AbortSignal,
): Promise<CommitOutcome> {
  const authorArgs = authorArgument(author);
  const staged: Comparison = await resolveComparison(repository, { staged: true });
  const files = await diffSummary(repository, staged, { ...(signal && { signal }) });
  if (files.length === 0) {
    throw new ToolError('Nothing is staged: stage changes with git_stage first.', 'nothing_staged');
  }
  const findings = [...scanMessage(message), ...(await scanStagedChanges(repository, staged, files, signal))];
  if (findings.length > 0) throw new ToolError(describeFindings(findings), 'secret_detected');
  try {
    await repository.git({
      args: ['commit', '--no-verify', '--no-gpg-sign', '--cleanup=strip', '--file=-', ...authorArgs],
      input: message,
      config: await committerFallback(repository, author),
      ...(signal && { signal }),
    });
  } catch (error) {
    if (
      error instanceof GitFailure &&
      /tell me who you are|unable to auto-detect email/i.test(error.stderr)
    ) {
      throw new ToolError(
        'git has no identity to commit with: pass author {name, email}, or set user.name and user.email in the git config.',
        'no_identity',
      );
    }
    throw error;
  }
  const commit = await headCommit(repository);
  if (!commit) throw new ToolError('git commit reported success but HEAD has no commit.', 'git_failed');
  return { commit, files };
}
