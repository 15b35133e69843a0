import { promises as fs } from 'node:fs';
import {
  budgetFields,
  cursorArg,
  decodeCursor,
  encodeCursor,
  maxTokensArg,
  requestedPage,
  requestKey,
  ToolError,
} from '@toolmesh/core';
import { z } from 'zod';
import { displayPath } from '../files/engine.js';
import { sha256File } from '../files/hash.js';
import { inPinnedFolder, PathChanged, withPinnedFile } from '../files/pinned.js';
import { readTextRange } from '../files/text-file.js';
import { walkTree } from '../files/walk.js';
import { defineTool, maxFileBytesArg, READ_ONLY } from './define.js';

const pathArg = z.string().describe('A path inside the roots: relative to the first root, or absolute.');
const entryType = z.enum(['file', 'directory', 'symlink', 'other']);

function typeOf(stat: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }) {
  if (stat.isSymbolicLink()) return 'symlink' as const;
  if (stat.isDirectory()) return 'directory' as const;
  return stat.isFile() ? ('file' as const) : ('other' as const);
}

/** The lstat of `absolute`, through its folder as opened (pinned.ts). */
async function statOrExplain(absolute: string, shown: string) {
  try {
    return await inPinnedFolder(absolute, (entry) => fs.lstat(entry));
  } catch (error) {
    if (error instanceof PathChanged) throw error;
    throw new ToolError(
      `${shown} does not exist: check the path with list_dir or search_files.`,
      'not_found',
    );
  }
}

/** The sha256 of the file `absolute`, read as opened (pinned.ts). */
function hashOfFile(absolute: string, shown: string): Promise<string> {
  const changed = () =>
    new ToolError(`${shown} stopped being a file while it was read: ask again.`, 'changed');
  return withPinnedFile(absolute, changed, (handle) => sha256File(handle));
}

export const statFile = defineTool({
  name: 'stat_file',
  title: 'File metadata',
  description:
    'Type, size, modification time, permission bits, symlink target and sha256 of a file or folder, without reading its content into the answer.',
  capability: 'read',
  input: z.object({ path: pathArg }),
  output: z.object({
    path: z.string(),
    type: entryType,
    size: z.number().int(),
    mtime: z.string(),
    mode: z.string().describe('Permission bits in octal, e.g. 0644.'),
    symlinkTarget: z.string().optional(),
    sha256: z.string().optional(),
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  async handle({ path }, { engine }) {
    const guard = await engine.roots.guard();
    const resolved = guard.resolve(path, 'read', { followFinalSymlink: false });
    const shown = displayPath(guard, resolved.absolute);
    const stat = await statOrExplain(resolved.absolute, shown);
    const type = typeOf(stat);
    let symlinkTarget: string | undefined;
    let hashOf: string | undefined = type === 'file' ? resolved.absolute : undefined;
    if (type === 'symlink') {
      symlinkTarget = await inPinnedFolder(resolved.absolute, (entry) => fs.readlink(entry));
      // Hash through the link only when its target is inside the roots too.
      const target = (() => {
        try {
          return guard.resolve(path, 'read');
        } catch {
          return undefined;
        }
      })();
      const targetStat = target && (await fs.stat(target.absolute).catch(() => undefined));
      if (target && targetStat?.isFile()) hashOf = target.absolute;
    }
    return {
      path: shown,
      type,
      size: stat.size,
      mtime: stat.mtime.toISOString(),
      mode: `0${(stat.mode & 0o7777).toString(8)}`,
      ...(symlinkTarget !== undefined && { symlinkTarget }),
      ...(hashOf && { sha256: await hashOfFile(hashOf, shown) }),
    };
  },
});

export const readFile = defineTool({
  name: 'read_file',
  title: 'Read a text file',
  description:
    'Reads UTF-8 text by line range within a byte budget. Returns sha256 (pass it as expectedSha256 to apply_patch), totalLines, and nextStartLine when more lines follow. Refuses binary files and files over maxFileBytes.',
  capability: 'read',
  input: z.object({
    path: pathArg,
    startLine: z.number().int().min(1).default(1).describe('First line to return, 1-based.'),
    endLine: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Last line to return (inclusive); default the end of the file.'),
    maxTokens: maxTokensArg,
    maxFileBytes: maxFileBytesArg('Refuse files larger than this many bytes'),
    cursor: cursorArg,
  }),
  output: z.object({
    path: z.string(),
    content: z.string(),
    sha256: z.string(),
    totalLines: z.number().int(),
    startLine: z.number().int(),
    endLine: z.number().int(),
    nextStartLine: z.number().int().optional(),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) => output.content,
  async handle(args, { engine }) {
    const guard = await engine.roots.guard();
    const resolved = guard.resolve(args.path, 'read');
    const shown = displayPath(guard, resolved.absolute);
    await statOrExplain(resolved.absolute, shown);
    const key = requestKey({ path: args.path, endLine: args.endLine });
    const startLine = args.cursor ? decodeCursor(args.cursor, key) : args.startLine;
    if (args.endLine !== undefined && args.endLine < startLine) {
      throw new ToolError(`endLine (${args.endLine}) is before startLine (${startLine}).`, 'bad_arguments');
    }
    const range = await readTextRange(resolved.absolute, shown, {
      startLine,
      ...(args.endLine !== undefined && { endLine: args.endLine }),
      budgetBytes: args.maxTokens,
      maxFileBytes: args.maxFileBytes ?? engine.maxFileBytes,
    });
    return {
      path: shown,
      ...range,
      ...(range.truncated &&
        !range.blockedByBudget &&
        range.nextStartLine !== undefined && { nextCursor: encodeCursor(range.nextStartLine, key) }),
    };
  },
});

export const listDir = defineTool({
  name: 'list_dir',
  title: 'List a folder',
  description:
    'Lists a folder, shallow or recursive, in name order. Never follows symlinks. Skips .git, node_modules, vendor, dist, build, .next, .venv, venv and what the root .gitignore ignores unless includeIgnored is set.',
  capability: 'read',
  input: z.object({
    path: pathArg.default('.'),
    recursive: z.boolean().default(false),
    maxDepth: z
      .number()
      .int()
      .min(1)
      .max(20)
      .default(4)
      .describe('How deep a recursive listing goes (at most 20).'),
    limit: z.number().int().min(1).max(5000).default(500).describe('Most entries to list (at most 5000).'),
    includeIgnored: z.boolean().default(false),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    path: z.string(),
    entries: z.array(z.object({ path: z.string(), type: entryType, size: z.number().int().optional() })),
    limitReached: z.boolean(),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    [
      ...output.entries.map((entry) => `${entry.type === 'directory' ? `${entry.path}/` : entry.path}`),
      ...(output.truncated ? [`… more: call again with cursor ${output.nextCursor}`] : []),
    ].join('\n'),
  async handle(args, { engine }) {
    const guard = await engine.roots.guard();
    const resolved = guard.resolve(args.path, 'read');
    const shown = displayPath(guard, resolved.absolute);
    const stat = await fs.stat(resolved.absolute).catch(() => undefined);
    if (!stat) throw new ToolError(`${shown} does not exist.`, 'not_found');
    if (!stat.isDirectory())
      throw new ToolError(`${shown} is a file, not a folder: use stat_file or read_file.`, 'not_a_folder');
    const entries: { path: string; type: z.infer<typeof entryType>; size?: number }[] = [];
    let limitReached = false;
    for (const entry of walkTree({
      root: resolved.root,
      start: resolved.absolute,
      maxDepth: args.recursive ? args.maxDepth : 1,
      includeIgnored: args.includeIgnored,
      exclude: (relative) => guard.isDenied(relative, 'read'),
    })) {
      if (entries.length >= args.limit) {
        limitReached = true;
        break;
      }
      const size =
        entry.type === 'file' ? (await fs.lstat(entry.absolute).catch(() => undefined))?.size : undefined;
      entries.push({
        path: displayPath(guard, entry.absolute),
        type: entry.type,
        ...(size !== undefined && { size }),
      });
    }
    const { items, ...budget } = requestedPage(entries, args);
    return { path: shown, entries: items, limitReached, ...budget };
  },
});
