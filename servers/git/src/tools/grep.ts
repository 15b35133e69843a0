import {
  budgetFields,
  cursorArg,
  decodeCursor,
  encodeCursor,
  maxTokensArg,
  requestKey,
  utf8Bytes,
} from '@toolmesh/core';
import { z } from 'zod';
import { type GrepMatch, grepTracked } from '../repository/grep.js';
import { repositoryPaths } from '../repository/repository-paths.js';
import { resolveCommit } from '../repository/revisions.js';
import { defineTool, pathsArg, READ_ONLY, repoArg, revisionArg } from './define.js';

export const gitGrep = defineTool({
  name: 'git_grep',
  title: 'Search tracked content',
  description:
    'Searches the files git tracks — in the working tree, or at a revision — for a literal string, or a POSIX extended regular expression when regex is true, one match per line with its column. Binary files are skipped. Matches are budgeted; continue with nextCursor.',
  capability: 'read',
  input: z.object({
    repo: repoArg,
    pattern: z.string().min(1).max(1000).describe('What to find.'),
    regex: z.boolean().default(false),
    ignoreCase: z.boolean().default(false),
    revision: revisionArg('Search the content at this commit instead of the working tree.').optional(),
    paths: pathsArg('Only under these files or folders.').optional(),
    maxResults: z
      .number()
      .int()
      .min(1)
      .max(10000)
      .default(500)
      .describe('Most matches in all pages together.'),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    repo: z.string(),
    matches: z.array(
      z.object({ path: z.string(), line: z.number().int(), column: z.number().int(), text: z.string() }),
    ),
    limitReached: z.boolean().describe('maxResults matches were returned; there may be more.'),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    [
      ...output.matches.map((match) => `${match.path}:${match.line}:${match.column}: ${match.text}`),
      ...(output.truncated ? [`… more: call again with cursor ${output.nextCursor}`] : []),
    ].join('\n') || 'No match.',
  async handle(args, { engine, signal }) {
    const repository = engine.repository(args.repo);
    const key = requestKey(args);
    const offset = decodeCursor(args.cursor, key);
    const commit = args.revision === undefined ? undefined : await resolveCommit(repository, args.revision);
    const paths = args.paths ? repositoryPaths(repository, args.paths) : [];
    const matches: GrepMatch[] = [];
    let seen = 0;
    let used = 0;
    let cut = false as boolean;
    let blockedBytes: number | undefined;
    let limitReached = false as boolean;
    await grepTracked(
      repository,
      {
        pattern: args.pattern,
        regex: args.regex,
        ignoreCase: args.ignoreCase,
        ...(commit && { commit }),
        paths,
        signal,
      },
      (match) => {
        if (seen++ < offset) return true;
        if (offset + matches.length >= args.maxResults) {
          limitReached = true;
          return false;
        }
        const bytes = utf8Bytes(match);
        if (used + bytes > args.maxTokens) {
          cut = true;
          if (matches.length === 0) blockedBytes = bytes;
          return false;
        }
        used += bytes;
        matches.push(match);
        return true;
      },
    );
    return {
      repo: repository.shown,
      matches,
      limitReached,
      truncated: cut,
      ...(cut && blockedBytes === undefined && { nextCursor: encodeCursor(offset + matches.length, key) }),
      ...(blockedBytes !== undefined && { blockedByBudget: true, minimumRequiredBytes: blockedBytes }),
    };
  },
});
