import { budgetFields, cursorArg, maxTokensArg, requestedPage } from '@toolmesh/core';
import { z } from 'zod';
import {
  CHANGES,
  OPERATIONS,
  operationInProgress,
  readStatus,
  type StatusEntry,
} from '../repository/status.js';
import { defineTool, READ_ONLY, repoArg } from './define.js';

const change = z.enum(CHANGES);

export const gitStatus = defineTool({
  name: 'git_status',
  title: 'Work tree status',
  description:
    'Branch, upstream and ahead/behind counts, the staged, unstaged, untracked and conflicted files, the number of stashes, and an operation in progress (merge, rebase, am, cherry-pick, revert, bisect). Reading it never rewrites the index. File lists are budgeted; counts are always complete.',
  capability: 'read',
  input: z.object({
    repo: repoArg,
    untracked: z
      .enum(['normal', 'all', 'no'])
      .default('normal')
      .describe('normal: untracked folders as one entry; all: every untracked file; no: none.'),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    repo: z.string(),
    branch: z.string().nullable().describe('null when HEAD is detached.'),
    head: z.string().nullable().describe('The commit checked out; null before the first commit.'),
    detached: z.boolean(),
    upstream: z.string().nullable(),
    ahead: z.number().int().nullable(),
    behind: z.number().int().nullable(),
    operation: z.enum(OPERATIONS).nullable(),
    stashCount: z.number().int(),
    clean: z.boolean(),
    counts: z.object({
      staged: z.number().int(),
      unstaged: z.number().int(),
      untracked: z.number().int(),
      conflicted: z.number().int(),
    }),
    staged: z.array(z.object({ path: z.string(), change, oldPath: z.string().optional() })),
    unstaged: z.array(z.object({ path: z.string(), change })),
    untracked: z.array(z.string()),
    conflicted: z.array(z.object({ path: z.string(), conflict: z.string() })),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    [
      `${output.repo}: ${output.branch ?? `detached at ${output.head?.slice(0, 12)}`}${output.upstream ? ` → ${output.upstream} (ahead ${output.ahead}, behind ${output.behind})` : ''}${output.operation ? `, ${output.operation} in progress` : ''}${output.stashCount ? `, ${output.stashCount} stashed` : ''}`,
      output.clean ? 'Clean.' : '',
      ...output.conflicted.map((entry) => `conflict  ${entry.path} (${entry.conflict})`),
      ...output.staged.map(
        (entry) => `staged    ${entry.change} ${entry.oldPath ? `${entry.oldPath} → ` : ''}${entry.path}`,
      ),
      ...output.unstaged.map((entry) => `unstaged  ${entry.change} ${entry.path}`),
      ...output.untracked.map((entry) => `untracked ${entry}`),
      ...(output.truncated ? [`… more files: call again with cursor ${output.nextCursor}`] : []),
    ]
      .filter(Boolean)
      .join('\n'),
  async handle(args, { engine, signal }) {
    const repository = engine.repository(args.repo);
    const status = await readStatus(repository, { untracked: args.untracked, signal });
    const area = (name: StatusEntry['area']) => status.entries.filter((entry) => entry.area === name);
    // Conflicts first: they block everything else.
    const ordered = [...area('conflicted'), ...area('staged'), ...area('unstaged'), ...area('untracked')];
    const { items, ...budget } = requestedPage(ordered, args);
    const shown = (name: StatusEntry['area']) => items.filter((entry) => entry.area === name);
    return {
      repo: repository.shown,
      branch: status.branch,
      head: status.head,
      detached: status.detached,
      upstream: status.upstream,
      ahead: status.ahead,
      behind: status.behind,
      operation: operationInProgress(repository),
      stashCount: status.stashCount,
      clean: status.entries.length === 0,
      counts: {
        staged: area('staged').length,
        unstaged: area('unstaged').length,
        untracked: area('untracked').length,
        conflicted: area('conflicted').length,
      },
      staged: shown('staged').map(({ path, change, oldPath }) => ({
        path,
        change: change ?? 'modified',
        ...(oldPath !== undefined && { oldPath }),
      })),
      unstaged: shown('unstaged').map(({ path, change }) => ({ path, change: change ?? 'modified' })),
      untracked: shown('untracked').map(({ path }) => path),
      conflicted: shown('conflicted').map(({ path, conflict }) => ({
        path,
        conflict: conflict ?? 'conflict',
      })),
      ...budget,
    };
  },
});
