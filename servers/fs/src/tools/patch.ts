import { z } from 'zod';
import { displayPath } from '../files/engine.js';
import { runPatch } from '../files/patch.js';
import { defineTool } from './define.js';

const sha256Arg = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters')
  .optional()
  .describe('Precondition: the sha256 of the file before this patch (from read_file or stat_file).');

const operation = z.discriminatedUnion('op', [
  z.object({
    op: z.literal('write'),
    path: z.string(),
    content: z.string(),
    encoding: z.enum(['utf8', 'base64']).default('utf8'),
    expectedSha256: sha256Arg,
  }),
  z.object({
    op: z.literal('replace'),
    path: z.string(),
    oldText: z.string().describe('Exact text to replace; must occur once unless replaceAll.'),
    newText: z.string(),
    replaceAll: z.boolean().default(false),
    expectedSha256: sha256Arg,
  }),
  z.object({
    op: z.literal('delete'),
    path: z.string().describe('A file, or an empty folder.'),
    expectedSha256: sha256Arg,
  }),
  z.object({
    op: z.literal('move'),
    from: z.string(),
    to: z.string(),
    overwrite: z.boolean().default(false),
    expectedSha256: sha256Arg,
  }),
  z.object({ op: z.literal('mkdir'), path: z.string() }),
]);

export const applyPatch = defineTool({
  name: 'apply_patch',
  title: 'Edit files transactionally',
  description:
    'Applies 1-100 operations (write, replace, delete, move, mkdir) as one transaction: later operations see the results of earlier ones, and if any fails nothing stays changed. replace needs a unique match unless replaceAll; delete refuses non-empty folders; move takes files. dryRun returns the diff and touches nothing.',
  capability: 'write',
  input: z.object({
    operations: z.array(operation).min(1).max(100),
    dryRun: z.boolean().default(false),
  }),
  output: z.object({
    applied: z.boolean(),
    files: z.array(
      z.object({
        path: z.string(),
        change: z.enum(['created', 'modified', 'deleted']),
        sha256: z.string().optional(),
        bytes: z.number().int().optional(),
      }),
    ),
    folders: z.array(z.object({ path: z.string(), change: z.enum(['created', 'deleted']) })),
    diff: z.string(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  actions: ['worktreeWrite'],
  render: (output) =>
    [
      output.applied ? 'Applied.' : 'Dry run: nothing was changed.',
      ...output.files.map((file) => `${file.change} ${file.path}`),
      ...output.folders.map((folder) => `${folder.change} ${folder.path}/`),
      '',
      output.diff,
    ].join('\n'),
  async handle({ operations, dryRun }, { engine }) {
    const guard = await engine.roots.guard();
    const result = await runPatch(guard, operations, {
      dryRun,
      display: (absolute) => displayPath(guard, absolute),
    });
    return { applied: !dryRun, ...result };
  },
});
