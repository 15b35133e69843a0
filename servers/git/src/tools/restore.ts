import { z } from 'zod';
import { repositoryPaths } from '../repository/repository-paths.js';
import { restorePaths } from '../repository/restore.js';
import { CHANGES } from '../repository/status.js';
import { defineTool, pathsArg, repoArg } from './define.js';
import { stashEntrySchema } from './stash.js';

export const gitRestore = defineTool({
  name: 'git_restore',
  title: 'Discard changes, recoverably',
  description:
    'Discards the changes to paths: the unstaged ones (back to the index), the staged ones too with staged=true (back to HEAD), and untracked files under paths with includeUntracked=true. What it discards is first saved as a stash, so nothing is lost: git_stash action=pop brings it back.',
  capability: 'write',
  input: z.object({
    repo: repoArg,
    paths: pathsArg('What to restore.').min(1),
    staged: z.boolean().default(false).describe('Discard staged changes too, back to HEAD.'),
    includeUntracked: z.boolean().default(false).describe('Also delete untracked files under paths.'),
  }),
  output: z.object({
    repo: z.string(),
    discarded: z.array(
      z.object({
        path: z.string(),
        area: z.enum(['staged', 'unstaged', 'untracked']),
        change: z.enum(CHANGES).optional(),
      }),
    ),
    stash: stashEntrySchema.describe('Where the discarded changes were saved.'),
    recover: z.string().describe('How to bring them back.'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  actions: ['vcsWrite'],
  requiresApproval: true,
  render: (output) =>
    [
      `Discarded ${output.discarded.length} changes; saved first as ${output.stash.ref} (${output.stash.commit.slice(0, 12)}).`,
      ...output.discarded.map((entry) => `  ${entry.area} ${entry.change ?? ''} ${entry.path}`),
      output.recover,
    ].join('\n'),
  async handle(args, { engine }) {
    const repository = engine.repository(args.repo);
    const paths = repositoryPaths(repository, args.paths, 'write');
    const outcome = await restorePaths(repository, {
      paths,
      staged: args.staged,
      includeUntracked: args.includeUntracked,
    });
    return {
      repo: repository.shown,
      discarded: outcome.discarded.map(({ path, area, change }) => ({
        path,
        area: area as 'staged' | 'unstaged' | 'untracked',
        ...(change && { change }),
      })),
      stash: outcome.stash,
      recover: `Recover with git_stash action=pop index=${outcome.stash.index} (or: git stash apply ${outcome.stash.commit}).`,
    };
  },
});
