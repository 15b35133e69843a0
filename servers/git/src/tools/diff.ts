import {
  budgetFields,
  cursorArg,
  decodeCursor,
  decodePosition,
  encodeCursor,
  encodePosition,
  maxTokensArg,
  requestedPage,
  requestKey,
  ToolError,
  utf8Bytes,
} from '@toolmesh/core';
import { z } from 'zod';
import { describeComparison, resolveComparison } from '../repository/comparison.js';
import { diffSummary, summaryTotals } from '../repository/diff-summary.js';
import { SYMBOL_KINDS } from '../repository/languages.js';
import { type PatchPosition, patchPage } from '../repository/patch-page.js';
import { repositoryPaths } from '../repository/repository-paths.js';
import { type SemanticFile, walkSemanticFiles } from '../repository/semantic-diff.js';
import { CHANGES } from '../repository/status.js';
import { defineTool, pathsArg, READ_ONLY, repoArg, revisionArg } from './define.js';

export const fileSummarySchema = z.object({
  path: z.string(),
  oldPath: z.string().optional(),
  change: z.enum(CHANGES),
  added: z.number().int().nullable().describe('null for a binary file.'),
  removed: z.number().int().nullable(),
  binary: z.boolean(),
});

const semanticFileSchema = fileSummarySchema.extend({
  language: z.string().nullable(),
  outlined: z
    .boolean()
    .describe('false: no outline of this file type, so only git hunk headers name definitions.'),
  hunks: z.array(
    z.object({
      oldStart: z.number().int(),
      oldLines: z.number().int(),
      newStart: z.number().int(),
      newLines: z.number().int(),
      header: z.string().describe('The enclosing definition git names in the hunk header.'),
      symbols: z.array(z.string()).describe('The definitions whose lines this hunk changes.'),
    }),
  ),
  symbols: z.array(
    z.object({
      name: z.string(),
      kind: z.enum([...SYMBOL_KINDS, 'top-level']),
      change: z.enum(['added', 'removed', 'modified']),
      addedLines: z.number().int(),
      removedLines: z.number().int(),
      line: z.number().int(),
    }),
  ),
});

function patchPosition(cursor: string | undefined, key: string): PatchPosition {
  if (cursor === undefined) return { file: 0, hunk: 0 };
  const { file, hunk } = (decodePosition(cursor, key) ?? {}) as { file?: unknown; hunk?: unknown };
  if (!Number.isInteger(file) || !Number.isInteger(hunk)) {
    throw new ToolError('`cursor` is not a cursor of this diff: call again without it.', 'bad_cursor');
  }
  return { file: file as number, hunk: hunk as number };
}

export const gitDiff = defineTool({
  name: 'git_diff',
  title: 'Diff',
  description:
    'Changes between two sides: the working tree vs the index (default), the index vs HEAD (staged=true; with from, vs that revision), the working tree vs a revision (from), or two revisions (from and to). mode=summary lists files with added/removed lines and renames; mode=patch gives the unified diff, cut between hunks to fit maxTokens; mode=semantic maps each hunk to the functions, methods and classes whose lines it changes (TypeScript, JavaScript, Python, Go, Rust, Java, C#, Kotlin, C/C++, Ruby, PHP, shell). Untracked files are not part of a diff: see git_status. The content of files that are secrets by their name (.env, keys, credentials) is withheld.',
  capability: 'read',
  input: z.object({
    repo: repoArg,
    mode: z.enum(['summary', 'patch', 'semantic']).default('summary'),
    staged: z
      .boolean()
      .default(false)
      .describe('Compare the index (what is staged) instead of the working tree.'),
    from: revisionArg('The old side.').optional(),
    to: revisionArg('The new side; needs from.').optional(),
    paths: pathsArg('Only these files or folders.').optional(),
    contextLines: z
      .number()
      .int()
      .min(0)
      .max(20)
      .default(3)
      .describe('mode=patch: unchanged lines around each change.'),
    renames: z.boolean().default(true).describe('Detect renamed files.'),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    repo: z.string(),
    comparison: z.string(),
    mode: z.enum(['summary', 'patch', 'semantic']),
    totals: z.object({ files: z.number().int(), added: z.number().int(), removed: z.number().int() }),
    files: z.array(
      semanticFileSchema.partial({ language: true, outlined: true, hunks: true, symbols: true }),
    ),
    patch: z.string().optional(),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) => {
    const more = output.truncated
      ? [
          output.blockedByBudget
            ? `… the next piece needs ${output.minimumRequiredBytes} bytes: raise maxTokens.`
            : `… more: call again with cursor ${output.nextCursor}`,
        ]
      : [];
    const head = `${output.comparison}: ${output.totals.files} files, +${output.totals.added} -${output.totals.removed}`;
    if (output.mode === 'patch') return [head, '', output.patch ?? '', ...more].join('\n');
    return [
      head,
      ...output.files.flatMap((file) => [
        `${file.change} ${file.oldPath ? `${file.oldPath} → ` : ''}${file.path} ${file.binary ? '(binary)' : `+${file.added} -${file.removed}`}`,
        ...(file.symbols ?? []).map(
          (symbol) =>
            `    ${symbol.change} ${symbol.kind} ${symbol.name} (+${symbol.addedLines} -${symbol.removedLines})`,
        ),
      ]),
      ...more,
    ].join('\n');
  },
  async handle(args, { engine, signal }) {
    const repository = engine.repository(args.repo);
    const comparison = await resolveComparison(repository, args);
    const paths = args.paths ? repositoryPaths(repository, args.paths) : [];
    const options = { paths, renames: args.renames, signal };
    const files = await diffSummary(repository, comparison, options);
    const common = {
      repo: repository.shown,
      comparison: describeComparison(comparison),
      mode: args.mode,
      totals: summaryTotals(files),
    };
    const key = requestKey(args);
    if (args.mode === 'summary') {
      const { items, ...budget } = requestedPage(files, args);
      return { ...common, files: items, ...budget };
    }
    if (args.mode === 'patch') {
      const page = await patchPage(
        repository,
        comparison,
        files,
        patchPosition(args.cursor, key),
        args.maxTokens,
        {
          ...options,
          contextLines: args.contextLines,
        },
      );
      return {
        ...common,
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
    const taken: SemanticFile[] = [];
    let used = 0;
    let next: number | undefined;
    let blockedBytes: number | undefined;
    await walkSemanticFiles(
      repository,
      comparison,
      files,
      decodeCursor(args.cursor, key),
      { ...options, budgetBytes: args.maxTokens },
      (file, index) => {
        const bytes = utf8Bytes(file);
        if (used + bytes > args.maxTokens) {
          next = index;
          if (taken.length === 0) blockedBytes = bytes;
          return false;
        }
        used += bytes;
        taken.push(file);
        return true;
      },
    );
    return {
      ...common,
      files: taken,
      truncated: next !== undefined,
      ...(next !== undefined && blockedBytes === undefined && { nextCursor: encodeCursor(next, key) }),
      ...(blockedBytes !== undefined && { blockedByBudget: true, minimumRequiredBytes: blockedBytes }),
    };
  },
});
