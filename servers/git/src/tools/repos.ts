import { budgetFields, cursorArg, maxTokensArg, requestedPage } from '@toolmesh/core';
import { z } from 'zod';
import { discoverRepositories } from '../repository/repository-discovery.js';
import { readStatus } from '../repository/status.js';
import { defineTool, READ_ONLY } from './define.js';

const MAX_REPOSITORIES = 500;

export const gitRepos = defineTool({
  name: 'git_repos',
  title: 'List repositories',
  description: `The git repositories under the roots (a root may be one, or a folder holding several), each with its current branch and whether its work tree is clean. Searches maxDepth folders deep, skipping node_modules, vendor, build output and virtual environments, and not inside a repository; at most ${MAX_REPOSITORIES}.`,
  capability: 'read',
  input: z.object({
    maxDepth: z
      .number()
      .int()
      .min(0)
      .max(10)
      .default(4)
      .describe('How many folders below each root to search.'),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    repositories: z.array(
      z.object({
        repo: z.string().describe('Pass this as `repo` to the other git tools.'),
        branch: z.string().nullable().describe('null when HEAD is detached.'),
        head: z.string().nullable().describe('The commit checked out; null before the first commit.'),
        clean: z.boolean().describe('No staged, unstaged, untracked or conflicted files.'),
      }),
    ),
    limitReached: z.boolean(),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    [
      ...output.repositories.map(
        (repo) =>
          `${repo.repo}  ${repo.branch ?? `(detached at ${repo.head?.slice(0, 12)})`}  ${repo.clean ? 'clean' : 'dirty'}`,
      ),
      ...(output.truncated ? [`… more: call again with cursor ${output.nextCursor}`] : []),
    ].join('\n') || 'No repository under the roots.',
  async handle(args, { engine, signal }) {
    const { tops, limitReached } = discoverRepositories(engine.roots, args.maxDepth, MAX_REPOSITORIES);
    const repositories = [];
    for (const top of tops) {
      const repository = engine.repositoryAt(top);
      if (!repository) continue;
      const status = await readStatus(repository, { signal });
      repositories.push({
        repo: repository.shown,
        branch: status.branch,
        head: status.head,
        clean: status.entries.length === 0,
      });
    }
    const { items, ...budget } = requestedPage(repositories, args);
    return { repositories: items, limitReached, ...budget };
  },
});
