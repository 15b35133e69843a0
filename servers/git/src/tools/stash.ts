import { budgetFields, cursorArg, maxTokensArg, requestedPage, ToolError } from '@toolmesh/core';
import { z } from 'zod';
import { repositoryPaths } from '../repository/repository-paths.js';
import { listStashes, popStash, pushStash } from '../repository/stash.js';
import { defineTool, pathsArg, RECOVERABLE_WRITE, repoArg } from './define.js';

export const stashEntrySchema = z.object({
  index: z.number().int(),
  ref: z.string().describe('stash@{index}.'),
  commit: z.string(),
  message: z.string(),
  date: z.string(),
});

export const gitStash = defineTool({
  name: 'git_stash',
  title: 'Stash changes',
  description:
    'action=push saves the staged and unstaged changes (of paths only, if given; untracked files too with includeUntracked) as a new stash and resets them in the working tree; action=pop applies stash@{index} (default 0) and drops it, keeping it when the apply conflicts; action=list shows the stashes, newest first.',
  capability: 'write',
  input: z.object({
    repo: repoArg,
    action: z.enum(['push', 'pop', 'list']),
    message: z.string().max(500).optional().describe('push: a note to find the stash by.'),
    paths: pathsArg('push: stash only these.').optional(),
    includeUntracked: z.boolean().default(false).describe('push: stash (and remove) untracked files too.'),
    index: z.number().int().min(0).max(10000).default(0).describe('pop: which stash, 0 the newest.'),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    repo: z.string(),
    action: z.enum(['push', 'pop', 'list']),
    stash: stashEntrySchema.optional().describe('push: the new stash; pop: the one applied and dropped.'),
    stashes: z.array(stashEntrySchema).optional(),
    ...budgetFields,
  }),
  annotations: RECOVERABLE_WRITE,
  actions: ['vcsWrite'],
  render: (output) => {
    if (output.action === 'list') {
      return (
        [
          ...(output.stashes ?? []).map(
            (stash) => `${stash.ref}  ${stash.date.slice(0, 16)}  ${stash.message}`,
          ),
          ...(output.truncated ? [`… more: call again with cursor ${output.nextCursor}`] : []),
        ].join('\n') || 'No stashes.'
      );
    }
    return output.action === 'push'
      ? `Saved as ${output.stash?.ref} (${output.stash?.commit.slice(0, 12)}): ${output.stash?.message}. Bring it back with git_stash action=pop.`
      : `Applied and dropped ${output.stash?.ref} (${output.stash?.commit.slice(0, 12)}).`;
  },
  async handle(args, { engine }) {
    const repository = engine.repository(args.repo);
    const common = { repo: repository.shown, action: args.action };
    if (args.action === 'list') {
      const { items, ...budget } = requestedPage(await listStashes(repository), args);
      return { ...common, stashes: items, ...budget };
    }
    if (args.action === 'pop') {
      return { ...common, stash: await popStash(repository, args.index), truncated: false };
    }
    const paths = args.paths ? repositoryPaths(repository, args.paths, 'write') : undefined;
    const stash = await pushStash(repository, {
      message: args.message ?? 'toolmesh git_stash',
      ...(paths && { paths }),
      includeUntracked: args.includeUntracked,
    });
    if (!stash) {
      throw new ToolError(
        `Nothing to stash${paths ? ` in ${paths.join(', ')}` : ''}: there are no staged or unstaged changes${args.includeUntracked ? ' or untracked files' : ' (untracked files need includeUntracked=true)'}.`,
        'nothing_to_stash',
      );
    }
    return { ...common, stash, truncated: false };
  },
});
