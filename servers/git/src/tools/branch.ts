import { ToolError } from '@toolmesh/core';
import { z } from 'zod';
import {
  createBranch,
  currentBranch,
  deleteMergedBranch,
  switchBranch,
} from '../repository/branch-change.js';
import { headCommit } from '../repository/revisions.js';
import { defineTool, RECOVERABLE_WRITE, repoArg, revisionArg } from './define.js';

export const gitBranch = defineTool({
  name: 'git_branch',
  title: 'Create, switch or delete a branch',
  description:
    'action=create makes branch name at startPoint (default HEAD) without moving an existing one, and switches to it when switchTo is true; action=switch checks out an existing local branch (git refuses if local changes would be overwritten); action=delete removes a local branch only if it is merged, never the current one.',
  capability: 'write',
  input: z.object({
    repo: repoArg,
    action: z.enum(['create', 'switch', 'delete']),
    name: z.string().min(1).max(200).describe('The local branch name.'),
    startPoint: revisionArg('create: where the branch starts (default HEAD).').optional(),
    switchTo: z.boolean().default(false).describe('create: switch to the new branch too.'),
  }),
  output: z.object({
    repo: z.string(),
    action: z.enum(['create', 'switch', 'delete']),
    branch: z.string(),
    commit: z.string().describe('create/switch: where the branch points; delete: where it pointed.'),
    current: z.string().nullable().describe('The branch checked out afterwards.'),
  }),
  annotations: RECOVERABLE_WRITE,
  actions: ['vcsWrite'],
  render: (output) =>
    `${output.action === 'create' ? 'Created' : output.action === 'switch' ? 'Switched to' : 'Deleted'} ${output.branch} (${output.commit.slice(0, 12)}); on ${output.current ?? 'a detached HEAD'}.${output.action === 'delete' ? ` Recreate it with action=create startPoint=${output.commit}.` : ''}`,
  async handle(args, { engine }) {
    const repository = engine.repository(args.repo);
    if (args.startPoint !== undefined && args.action !== 'create') {
      throw new ToolError('startPoint is for action=create only.', 'bad_arguments');
    }
    let commit: string;
    if (args.action === 'create') {
      commit = await createBranch(repository, args.name, args.startPoint);
      if (args.switchTo) await switchBranch(repository, args.name);
    } else if (args.action === 'switch') {
      await switchBranch(repository, args.name);
      commit = (await headCommit(repository)) ?? '';
    } else {
      commit = await deleteMergedBranch(repository, args.name);
    }
    return {
      repo: repository.shown,
      action: args.action,
      branch: args.name,
      commit,
      current: await currentBranch(repository),
    };
  },
});
