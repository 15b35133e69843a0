import {
  budgetFields,
  cursorArg,
  decodeCursor,
  decodePosition,
  encodePosition,
  maxTokensArg,
  requestedPage,
  requestKey,
  ToolError,
  takeWithinBudget,
} from '@toolmesh/core';
import { z } from 'zod';
import { blameLines } from '../repository/blame.js';
import { baseOf, readCommit } from '../repository/commit-details.js';
import { diffSummary, summaryTotals } from '../repository/diff-summary.js';
import { readLog } from '../repository/log.js';
import { type PatchPosition, patchPage } from '../repository/patch-page.js';
import { repositoryPaths } from '../repository/repository-paths.js';
import { resolveCommit } from '../repository/revisions.js';
import { defineTool, READ_ONLY, repoArg, revisionArg } from './define.js';
import { fileSummarySchema } from './diff.js';

const MAX_BLAME_LINES = 2000;

const changedFile = z.object({
  path: z.string(),
  oldPath: z.string().optional(),
  added: z.number().int().nullable(),
  removed: z.number().int().nullable(),
});

const person = { author: z.string(), email: z.string(), date: z.string() };

function showPosition(cursor: string | undefined, key: string): PatchPosition {
  if (cursor === undefined) return { file: 0, hunk: 0 };
  const position = decodePosition(cursor, key) as Partial<PatchPosition> | undefined;
  if (!Number.isInteger(position?.file) || !Number.isInteger(position?.hunk)) {
    throw new ToolError('`cursor` is not a cursor of this commit: call again without it.', 'bad_cursor');
  }
  return position as PatchPosition;
}

export const gitHistory = defineTool({
  name: 'git_history',
  title: 'History, commits and blame',
  description:
    'action=log: commits from revision (default HEAD), newest first, filtered by path, author, since/until (dates git understands: "2 weeks ago", 2024-05-01) and message grep, up to limit, each with hash, author, date, subject and the files it changed. action=show: one commit (revision, default HEAD) with its message and its diff against its first parent, cut between hunks to fit maxTokens. action=blame: who last changed each line of path in startLine..endLine, at revision or in the working tree.',
  capability: 'read',
  input: z.object({
    repo: repoArg,
    action: z.enum(['log', 'show', 'blame']),
    revision: revisionArg(
      'log: where to start; show: the commit; blame: blame at this commit (default: the working tree).',
    ).optional(),
    path: z
      .string()
      .min(1)
      .optional()
      .describe(
        "log: only commits touching this file or folder; blame: the file (required). Relative to the repository's top folder.",
      ),
    author: z.string().optional().describe('log: commits whose author matches this regular expression.'),
    since: z.string().optional().describe('log: commits after this date.'),
    until: z.string().optional().describe('log: commits before this date.'),
    grep: z.string().optional().describe('log: commits whose message matches this regular expression.'),
    limit: z.number().int().min(1).max(500).default(20).describe('log: most commits in all pages together.'),
    startLine: z.number().int().min(1).default(1).describe('blame: first line.'),
    endLine: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`blame: last line (default startLine + 199; at most ${MAX_BLAME_LINES} lines).`),
    contextLines: z
      .number()
      .int()
      .min(0)
      .max(20)
      .default(3)
      .describe('show: unchanged lines around each change.'),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    repo: z.string(),
    action: z.enum(['log', 'show', 'blame']),
    commits: z
      .array(
        z.object({
          hash: z.string(),
          shortHash: z.string(),
          ...person,
          parents: z.array(z.string()),
          subject: z.string(),
          filesChanged: z.number().int(),
          files: z.array(changedFile),
        }),
      )
      .optional(),
    commit: z
      .object({
        hash: z.string(),
        parents: z.array(z.string()),
        ...person,
        committer: z.string(),
        committerEmail: z.string(),
        committerDate: z.string(),
        subject: z.string(),
        body: z.string(),
        comparedWith: z.string().describe('The first parent, or the empty tree for a root commit.'),
      })
      .optional(),
    totals: z
      .object({ files: z.number().int(), added: z.number().int(), removed: z.number().int() })
      .optional(),
    files: z.array(fileSummarySchema).optional(),
    patch: z.string().optional(),
    lines: z
      .array(
        z.object({
          line: z.number().int(),
          commit: z.string(),
          ...person,
          summary: z.string(),
          text: z.string(),
          uncommitted: z.boolean(),
        }),
      )
      .optional(),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) => {
    const more = output.truncated ? [`… more: call again with cursor ${output.nextCursor}`] : [];
    if (output.action === 'log') {
      return [
        ...(output.commits ?? []).map(
          (commit) =>
            `${commit.shortHash} ${commit.date.slice(0, 10)} ${commit.author}: ${commit.subject} (${commit.filesChanged} files)`,
        ),
        ...more,
      ].join('\n');
    }
    if (output.action === 'blame') {
      return [
        ...(output.lines ?? []).map(
          (line) =>
            `${line.commit.slice(0, 8)} ${line.author.padEnd(16).slice(0, 16)} ${line.date.slice(0, 10)} ${String(line.line).padStart(5)}  ${line.text}`,
        ),
        ...more,
      ].join('\n');
    }
    const commit = output.commit;
    return [
      `commit ${commit?.hash}`,
      `Author: ${commit?.author} <${commit?.email}>  ${commit?.date}`,
      '',
      commit?.subject ?? '',
      ...(commit?.body ? ['', commit.body] : []),
      '',
      output.patch ?? '',
      ...more,
    ].join('\n');
  },
  async handle(args, { engine, signal }) {
    const repository = engine.repository(args.repo);
    const key = requestKey(args);
    const path = args.path === undefined ? undefined : repositoryPaths(repository, [args.path])[0];
    const revision = args.revision === undefined ? undefined : await resolveCommit(repository, args.revision);
    const common = { repo: repository.shown, action: args.action };

    if (args.action === 'log') {
      const skip = decodeCursor(args.cursor, key);
      const commits = await readLog(repository, {
        ...(revision && { from: revision }),
        ...(path && { path }),
        ...(args.author !== undefined && { author: args.author }),
        ...(args.since !== undefined && { since: args.since }),
        ...(args.until !== undefined && { until: args.until }),
        ...(args.grep !== undefined && { grep: args.grep }),
        limit: Math.max(0, args.limit - skip),
        skip,
        signal,
      });
      const { items, ...budget } = takeWithinBudget(commits, args.maxTokens, { key, base: skip });
      return { ...common, commits: items, ...budget };
    }

    if (args.action === 'show') {
      const details = await readCommit(repository, revision ?? (await resolveCommit(repository, 'HEAD')));
      const base = await baseOf(repository, details);
      const comparison = {
        kind: 'commits' as const,
        from: base,
        to: details.hash,
        fromLabel: base,
        toLabel: details.hash,
      };
      const options = { ...(path && { paths: [path] }), signal };
      const files = await diffSummary(repository, comparison, options);
      const page = await patchPage(
        repository,
        comparison,
        files,
        showPosition(args.cursor, key),
        args.maxTokens,
        {
          ...options,
          contextLines: args.contextLines,
        },
      );
      return {
        ...common,
        commit: {
          ...details,
          comparedWith: details.parents[0] ? `first parent ${details.parents[0]}` : 'the empty tree',
        },
        totals: summaryTotals(files),
        files: page.files,
        patch: page.patch,
        truncated: page.next !== undefined || page.blockedBytes !== undefined,
        ...(page.next && { nextCursor: encodePosition(page.next, key) }),
        ...(page.blockedBytes !== undefined && {
          blockedByBudget: true,
          minimumRequiredBytes: page.blockedBytes,
        }),
      };
    }

    if (!path) throw new ToolError('action=blame needs path: the file to blame.', 'bad_arguments');
    const endLine = args.endLine ?? args.startLine + 199;
    if (endLine < args.startLine) {
      throw new ToolError(`endLine (${endLine}) is before startLine (${args.startLine}).`, 'bad_arguments');
    }
    if (endLine - args.startLine + 1 > MAX_BLAME_LINES) {
      throw new ToolError(
        `Blame at most ${MAX_BLAME_LINES} lines per call: narrow startLine..endLine.`,
        'bad_arguments',
      );
    }
    const lines = await blameLines(
      repository,
      path,
      { startLine: args.startLine, endLine },
      revision,
      signal,
    );
    const { items, ...budget } = requestedPage(lines, args);
    return { ...common, lines: items, ...budget };
  },
});
