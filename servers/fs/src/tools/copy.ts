import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { errnoCode, ToolError } from '@toolmesh/core';
import { z } from 'zod';
import { temporaryBeside } from '../files/atomic-write.js';
import { displayPath } from '../files/engine.js';
import { sha256File } from '../files/hash.js';
import { defineTool } from './define.js';

export const copyFile = defineTool({
  name: 'copy_file',
  title: 'Copy a file',
  description:
    'Copies a file byte for byte inside the roots, creating missing parent folders. Refuses to replace an existing destination unless overwrite is true.',
  capability: 'write',
  input: z.object({
    source: z.string(),
    destination: z.string(),
    overwrite: z.boolean().default(false),
  }),
  output: z.object({
    source: z.string(),
    destination: z.string(),
    bytes: z.number().int(),
    sha256: z.string(),
    replaced: z.boolean(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  actions: ['worktreeWrite'],
  render: (output) =>
    `Copied ${output.source} to ${output.destination} (${output.bytes} bytes${output.replaced ? ', replaced' : ''}).`,
  async handle(args, { engine }) {
    const guard = await engine.roots.guard();
    const source = guard.resolve(args.source, 'read');
    const destination = guard.resolve(args.destination, 'write');
    const shownSource = displayPath(guard, source.absolute);
    const shownDestination = displayPath(guard, destination.absolute);
    const stat = await fs.stat(source.absolute).catch(() => undefined);
    if (!stat?.isFile())
      throw new ToolError(`${shownSource} is not a file: copy_file copies single files.`, 'not_found');
    const existing = await fs.lstat(destination.absolute).catch(() => undefined);
    if (existing?.isDirectory()) {
      throw new ToolError(
        `${shownDestination} is a folder: name the file inside it, e.g. ${shownDestination}/${path.basename(source.absolute)}.`,
        'bad_arguments',
      );
    }
    if (existing && !args.overwrite) {
      throw new ToolError(`${shownDestination} exists: set overwrite to true to replace it.`, 'exists');
    }
    await fs.mkdir(path.dirname(destination.absolute), { recursive: true });
    // Copy to a temporary name, then move it into place: exclusively (link) when not overwriting,
    // so a file that appears meanwhile is not clobbered; by rename otherwise.
    const temporary = temporaryBeside(destination.absolute);
    await fs.copyFile(source.absolute, temporary, constants.COPYFILE_EXCL);
    try {
      await fs.chmod(temporary, stat.mode & 0o7777);
      if (args.overwrite) await fs.rename(temporary, destination.absolute);
      else await fs.link(temporary, destination.absolute);
    } catch (error) {
      if (errnoCode(error) === 'EEXIST')
        throw new ToolError(
          `${shownDestination} appeared meanwhile: set overwrite to true to replace it.`,
          'exists',
        );
      throw error;
    } finally {
      await fs.rm(temporary, { force: true });
    }
    return {
      source: shownSource,
      destination: shownDestination,
      bytes: stat.size,
      sha256: await sha256File(destination.absolute),
      replaced: existing !== undefined,
    };
  },
});
