import { z } from 'zod';
import { repositoryPaths } from '../repository/repository-paths.js';
import { changeStaging } from '../repository/staging.js';
import { CHANGES, readStatus } from '../repository/status.js';
import { defineTool, pathsArg, RECOVERABLE_WRITE, repoArg } from './define.js';

/** How many staged paths an answer lists; the count is always complete. */
const LISTED = 200;

export const gitStage = defineTool({
  name: 'git_stage',
  title: 'Stage or unstage',
  description:
    'action=stage adds the current content of paths to the index (a deleted file is staged as deleted); action=unstage takes paths out of the index again and leaves the working tree as it is. Paths must lie inside the repository; untracked files that are secrets by their name (.env, private keys, credentials files) are refused, nothing staged. Returns what is staged afterwards.',
  capability: 'write',
  input: z.object({
    repo: repoArg,
    action: z.enum(['stage', 'unstage']).default('stage'),
    paths: pathsArg('What to stage or unstage.').min(1),
  }),
  output: z.object({
    repo: z.string(),
    action: z.enum(['stage', 'unstage']),
    paths: z.array(z.string()),
    stagedCount: z.number().int(),
    staged: z
      .array(z.object({ path: z.string(), change: z.enum(CHANGES) }))
      .describe(`The first ${LISTED} staged files.`),
  }),
  annotations: RECOVERABLE_WRITE,
  actions: ['vcsWrite'],
  render: (output) =>
    [
      `${output.action === 'stage' ? 'Staged' : 'Unstaged'} ${output.paths.join(', ')}. ${output.stagedCount} files staged now:`,
      ...output.staged.map((entry) => `  ${entry.change} ${entry.path}`),
    ].join('\n'),
  async handle(args, { engine, signal }) {
    const repository = engine.repository(args.repo);
    const paths = repositoryPaths(repository, args.paths, 'write');
    await changeStaging(repository, args.action, paths);
    const staged = (await readStatus(repository, { untracked: 'no', signal })).entries.filter(
      (entry) => entry.area === 'staged',
    );
    return {
      repo: repository.shown,
      action: args.action,
      paths,
      stagedCount: staged.length,
      staged: staged.slice(0, LISTED).map(({ path, change }) => ({ path, change: change ?? 'modified' })),
    };
  },
});
