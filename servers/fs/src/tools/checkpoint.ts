import {
  budgetFields,
  cursorArg,
  decodeCursor,
  maxTokensArg,
  requestKey,
  ToolError,
  takeWithinBudget,
} from '@toolmesh/core';
import { z } from 'zod';
import { CHECKPOINT_LIMITS } from '../files/checkpoints.js';
import { defineTool, READ_ONLY } from './define.js';

const summary = z.object({
  id: z.string(),
  createdAt: z.string(),
  label: z.string().optional(),
  reason: z.enum(['manual', 'pre-restore']),
  root: z.string(),
  paths: z.array(z.string()),
  fileCount: z.number().int(),
  totalBytes: z.number().int(),
});

export const checkpointWrite = defineTool({
  name: 'checkpoint_write',
  title: 'Create or restore a checkpoint',
  description: `action=create snapshots up to ${CHECKPOINT_LIMITS.paths} paths (files, folders with their contents, or paths that do not exist yet), ${CHECKPOINT_LIMITS.bytes / 1024 / 1024} MiB at most; the latest ${CHECKPOINT_LIMITS.keep} per root are kept, outside the project. action=restore puts those paths back as they were, after taking a pre-restore checkpoint so the restore can itself be undone.`,
  capability: 'write',
  input: z.object({
    action: z.enum(['create', 'restore']),
    paths: z
      .array(z.string())
      .min(1)
      .max(CHECKPOINT_LIMITS.paths)
      .optional()
      .describe('With create: what to snapshot.'),
    label: z.string().max(200).optional().describe('With create: a note to find it by.'),
    id: z.string().optional().describe('With restore: the checkpoint to restore.'),
  }),
  output: z.object({
    action: z.enum(['create', 'restore']),
    checkpoint: summary,
    preRestore: summary.optional(),
    changedPaths: z.number().int().optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  actions: ['worktreeWrite'],
  render: (output) =>
    output.action === 'create'
      ? `Checkpoint ${output.checkpoint.id}: ${output.checkpoint.fileCount} files, ${output.checkpoint.totalBytes} bytes.`
      : `Restored ${output.checkpoint.id} (${output.changedPaths} paths changed); undo with restore id ${output.preRestore?.id}.`,
  async handle(args, { engine }) {
    const guard = await engine.roots.guard();
    if (args.action === 'create') {
      if (!args.paths)
        throw new ToolError('action=create needs paths: the files or folders to snapshot.', 'bad_arguments');
      const checkpoint = await engine.checkpoints.create(
        guard,
        args.paths,
        args.label ? { label: args.label } : {},
      );
      return { action: 'create' as const, checkpoint };
    }
    if (!args.id)
      throw new ToolError(
        'action=restore needs id: find it with checkpoint_read action=list.',
        'bad_arguments',
      );
    const { restored, preRestore, changed } = await engine.checkpoints.restore(guard, args.id);
    return { action: 'restore' as const, checkpoint: restored, preRestore, changedPaths: changed };
  },
});

export const checkpointRead = defineTool({
  name: 'checkpoint_read',
  title: 'List or inspect checkpoints',
  description:
    "action=list shows the checkpoints of these roots, newest first. action=read shows what one checkpoint holds; with path, also that file's content as it was.",
  capability: 'read',
  input: z.object({
    action: z.enum(['list', 'read']),
    id: z.string().optional().describe('With read: the checkpoint.'),
    path: z
      .string()
      .optional()
      .describe('With read: a file of the checkpoint (relative to its root) to return the content of.'),
    limit: z.number().int().min(1).max(CHECKPOINT_LIMITS.keep).default(20),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    checkpoints: z.array(summary).optional(),
    checkpoint: summary.optional(),
    entries: z
      .array(
        z.object({
          path: z.string(),
          kind: z.enum(['file', 'directory', 'absent']),
          mode: z.number().int().optional(),
          size: z.number().int().optional(),
          sha256: z.string().optional(),
        }),
      )
      .optional(),
    content: z.string().optional(),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  async handle(args, { engine }) {
    const guard = await engine.roots.guard();
    const key = requestKey(args);
    const offset = decodeCursor(args.cursor, key);
    if (args.action === 'list') {
      const { items, ...budget } = takeWithinBudget(
        engine.checkpoints.list(guard.realRoots, args.limit),
        args.maxTokens,
        { key, offset },
      );
      return { checkpoints: items, ...budget };
    }
    if (!args.id) throw new ToolError('action=read needs id: find it with action=list.', 'bad_arguments');
    const checkpoint = engine.checkpoints.get(guard.realRoots, args.id);
    if (args.path !== undefined) {
      const content = engine.checkpoints.content(args.id, args.path.replace(/^\.\//, ''));
      if (!content)
        throw new ToolError(
          `Checkpoint ${args.id} holds no file ${args.path}: see its entries with action=read.`,
          'not_found',
        );
      const text = content.toString('utf8');
      if (Buffer.byteLength(text) > args.maxTokens) {
        return {
          checkpoint,
          truncated: true,
          blockedByBudget: true,
          minimumRequiredBytes: Buffer.byteLength(text),
        };
      }
      return { checkpoint, content: text, truncated: false };
    }
    const { items, ...budget } = takeWithinBudget(engine.checkpoints.entries(args.id), args.maxTokens, {
      key,
      offset,
    });
    return { checkpoint, entries: items, ...budget };
  },
});
