import { z } from 'zod';
import { currentBranch } from '../repository/branch-change.js';
import { commitStaged } from '../repository/committing.js';
import { summaryTotals } from '../repository/diff-summary.js';
import { defineTool, RECOVERABLE_WRITE, repoArg } from './define.js';

export const gitCommit = defineTool({
  name: 'git_commit',
  title: 'Commit staged changes',
  description:
    'Commits what is staged with message; the author is the one in the git config unless author is given. Refuses, naming file and line, when the staged changes or the message look like they hold a secret: private keys, cloud and API tokens (AWS, GitHub, GitLab, Slack, Stripe, Google, npm, OpenAI, Anthropic, SendGrid), .env files, key stores, or random-looking values assigned to names like *_KEY, *_SECRET, *_TOKEN or PASSWORD. Hooks are not run and nothing is signed; no amend, no push.',
  capability: 'write',
  input: z.object({
    repo: repoArg,
    message: z
      .string()
      .max(20000)
      .refine((text) => text.trim().length > 0, 'must not be empty')
      .describe('The commit message: a subject line, optionally a blank line and a body.'),
    author: z
      .object({ name: z.string().min(1).max(200), email: z.string().min(3).max(200) })
      .optional()
      .describe('Commit as this author instead of the configured one.'),
  }),
  output: z.object({
    repo: z.string(),
    commit: z.string(),
    branch: z.string().nullable(),
    totals: z.object({ files: z.number().int(), added: z.number().int(), removed: z.number().int() }),
  }),
  annotations: RECOVERABLE_WRITE,
  actions: ['vcsWrite'],
  render: (output) =>
    `Committed ${output.commit.slice(0, 12)} on ${output.branch ?? 'a detached HEAD'}: ${output.totals.files} files, +${output.totals.added} -${output.totals.removed}.`,
  async handle(args, { engine, signal }) {
    const repository = engine.repository(args.repo);
    const outcome = await commitStaged(repository, args.message, args.author, signal);
    return {
      repo: repository.shown,
      commit: outcome.commit,
      branch: await currentBranch(repository),
      totals: summaryTotals(outcome.files),
    };
  },
});
