import { budgetFields, cursorArg, maxTokensArg, requestedPage } from '@toolmesh/core';
import { z } from 'zod';
import { listRefs } from '../repository/branches.js';
import { defineTool, READ_ONLY, repoArg } from './define.js';

const refType = z.enum(['local', 'remote', 'tag']);

export const gitBranches = defineTool({
  name: 'git_branches',
  title: 'Branches and tags',
  description:
    'Local branches (current one marked, with upstream and ahead/behind), remote-tracking branches and tags, each with its last commit: hash, committer date and subject.',
  capability: 'read',
  input: z.object({
    repo: repoArg,
    include: z
      .array(refType)
      .min(1)
      .default(['local', 'remote', 'tag'])
      .describe('Which kinds of refs to list.'),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    repo: z.string(),
    current: z.string().nullable().describe('The branch checked out; null when HEAD is detached.'),
    refs: z.array(
      z.object({
        name: z.string(),
        type: refType,
        current: z.boolean(),
        commit: z.string(),
        date: z.string(),
        subject: z.string(),
        upstream: z.string().optional(),
        ahead: z.number().int().optional(),
        behind: z.number().int().optional(),
        upstreamGone: z.boolean().optional(),
      }),
    ),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    [
      ...output.refs.map(
        (ref) =>
          `${ref.current ? '*' : ' '} ${ref.type.padEnd(6)} ${ref.name}  ${ref.commit.slice(0, 12)} ${ref.subject}${ref.upstream ? `  [${ref.upstream}${ref.upstreamGone ? ': gone' : `: ahead ${ref.ahead}, behind ${ref.behind}`}]` : ''}`,
      ),
      ...(output.truncated ? [`… more: call again with cursor ${output.nextCursor}`] : []),
    ].join('\n') || 'No branches or tags yet.',
  async handle(args, { engine }) {
    const repository = engine.repository(args.repo);
    const refs = await listRefs(repository, args.include);
    const current = refs.find((ref) => ref.current)?.name ?? null;
    const { items, ...budget } = requestedPage(refs, args);
    return { repo: repository.shown, current, refs: items, ...budget };
  },
});
