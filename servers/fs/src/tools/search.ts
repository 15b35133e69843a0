import { promises as fs } from 'node:fs';
import {
  budgetFields,
  cursorArg,
  decodePosition,
  encodePosition,
  maxTokensArg,
  requestKey,
  ToolError,
} from '@toolmesh/core';
import { z } from 'zod';
import type { FsEngine } from '../files/engine.js';
import { displayPath } from '../files/engine.js';
import { runInWorker } from '../files/search.js';
import { compilePattern } from '../files/search-engine.js';
import type { ResumePoint, SearchOutcome, SearchScope } from '../files/search-job.js';
import { defineTool, maxFileBytesArg, READ_ONLY } from './define.js';

const timeoutArg = z
  .number()
  .int()
  .min(1000)
  .max(120_000)
  .default(30_000)
  .describe('Stop the search after this many milliseconds (1000-120000).');

async function scopeOf(
  engine: FsEngine,
  args: { path: string; includeIgnored: boolean; maxTokens: number; cursor?: string | undefined },
  key: string,
  allowFile: boolean,
): Promise<{ scope: SearchScope; shown: string }> {
  const guard = await engine.roots.guard();
  const resolved = guard.resolve(args.path, 'read');
  const shown = displayPath(guard, resolved.absolute);
  const stat = await fs.stat(resolved.absolute).catch(() => undefined);
  if (!stat) throw new ToolError(`${shown} does not exist.`, 'not_found');
  if (!stat.isDirectory() && !(allowFile && stat.isFile())) {
    throw new ToolError(`${shown} is not a folder${allowFile ? ' or a file' : ''}.`, 'bad_arguments');
  }
  return {
    shown,
    scope: {
      root: resolved.root,
      start: resolved.absolute,
      primaryRoot: guard.realRoots[0] as string,
      includeIgnored: args.includeIgnored,
      deny: engine.deny.read,
      ...(args.cursor !== undefined && { resume: resumePoint(decodePosition(args.cursor, key)) }),
      budgetBytes: args.maxTokens,
    },
  };
}

function resumePoint(position: unknown): ResumePoint {
  const { path, line } = (position ?? {}) as { path?: unknown; line?: unknown };
  if (typeof path !== 'string' || (line !== undefined && typeof line !== 'number')) {
    throw new ToolError('`cursor` is not a cursor of this search: call again without it.', 'bad_cursor');
  }
  return { path, ...(typeof line === 'number' && { line }) };
}

/** The budget fields of a search that stopped early: where to resume, and whether one item was too big. */
function continuation(outcome: SearchOutcome<unknown>, key: string) {
  if (outcome.exhausted || !outcome.next) return {};
  if (outcome.blockedBytes !== undefined) {
    return { blockedByBudget: true, minimumRequiredBytes: outcome.blockedBytes };
  }
  return { nextCursor: encodePosition(outcome.next, key) };
}

// An empty glob matches nothing and picomatch refuses it: said here, with the argument named.
const glob = z.string().min(1);
const globList = z
  .union([glob, z.array(glob).max(50)])
  .transform((value) => (Array.isArray(value) ? value : [value]));

export const searchFiles = defineTool({
  name: 'search_files',
  title: 'Find files by name',
  description:
    'Finds files and folders whose path matches any of the glob patterns (a union). A pattern without "/" matches the name at any depth ("*.test.ts"); with "/" it matches the path from the root ("src/**/index.ts").',
  capability: 'read',
  input: z.object({
    patterns: globList.describe('One glob or a list of globs; results match any of them.'),
    path: z.string().default('.').describe('Folder to search in.'),
    maxResults: z.number().int().min(1).max(5000).default(100),
    includeIgnored: z.boolean().default(false),
    timeoutMs: timeoutArg,
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    matches: z.array(z.object({ path: z.string(), type: z.enum(['file', 'directory', 'symlink', 'other']) })),
    filesScanned: z.number().int(),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    [
      ...output.matches.map((match) => match.path),
      ...(output.truncated ? [`… more: call again with cursor ${output.nextCursor}`] : []),
    ].join('\n') || 'No match.',
  async handle(args, { engine, signal }) {
    const key = requestKey(args);
    const { scope } = await scopeOf(engine, args, key, false);
    const outcome = await runInWorker(
      { ...scope, kind: 'files', patterns: args.patterns, maxResults: args.maxResults },
      { timeoutMs: args.timeoutMs, signal },
    );
    return {
      matches: outcome.items,
      filesScanned: outcome.filesScanned,
      truncated: !outcome.exhausted,
      ...continuation(outcome, key),
    };
  },
});

export const searchText = defineTool({
  name: 'search_text',
  title: 'Search file contents',
  description:
    'Searches text files under a folder (or one file) for a literal string or a regular expression, one match per line, with optional context lines. Skips binary files and the usual build and dependency folders. Results are budgeted; continue with nextCursor.',
  capability: 'read',
  input: z.object({
    pattern: z
      .string()
      .min(1)
      .describe('What to find: a literal string, or a JavaScript regular expression when regex is true.'),
    regex: z.boolean().default(false),
    caseSensitive: z.boolean().default(true),
    path: z.string().default('.').describe('Folder or file to search.'),
    glob: globList.optional().describe('Only files matching these globs, e.g. "*.ts" or ["src/**", "*.md"].'),
    contextLines: z.number().int().min(0).max(5).default(0),
    includeIgnored: z.boolean().default(false),
    maxFileBytes: maxFileBytesArg('Skip files larger than this many bytes'),
    timeoutMs: timeoutArg,
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    matches: z.array(
      z.object({
        path: z.string(),
        line: z.number().int(),
        column: z.number().int(),
        text: z.string(),
        before: z.array(z.string()).optional(),
        after: z.array(z.string()).optional(),
      }),
    ),
    filesScanned: z.number().int(),
    skippedLargeFiles: z.number().int(),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    [
      ...output.matches.map((match) => `${match.path}:${match.line}:${match.column}: ${match.text}`),
      ...(output.truncated ? [`… more: call again with cursor ${output.nextCursor}`] : []),
    ].join('\n') || `No match in ${output.filesScanned} files.`,
  async handle(args, { engine, signal }) {
    if (args.regex) {
      try {
        compilePattern(args);
      } catch (error) {
        throw new ToolError(
          `pattern is not a valid regular expression (${(error as Error).message}). Fix it, or set regex to false to search literally.`,
          'bad_arguments',
        );
      }
    }
    const key = requestKey(args);
    const { scope } = await scopeOf(engine, args, key, true);
    const outcome = await runInWorker(
      {
        ...scope,
        kind: 'text',
        pattern: args.pattern,
        regex: args.regex,
        caseSensitive: args.caseSensitive,
        globs: args.glob ?? [],
        contextLines: args.contextLines,
        maxFileBytes: args.maxFileBytes ?? engine.maxFileBytes,
      },
      { timeoutMs: args.timeoutMs, signal },
    );
    return {
      matches: outcome.items,
      filesScanned: outcome.filesScanned,
      skippedLargeFiles: outcome.skippedLargeFiles,
      truncated: !outcome.exhausted,
      ...continuation(outcome, key),
    };
  },
});
