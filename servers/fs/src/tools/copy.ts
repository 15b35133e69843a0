import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { errnoCode, ToolError } from '@toolmesh/core';
import { z } from 'zod';
import { createFileExclusive, writeFileAtomic } from '../files/atomic-write.js';
import { displayPath } from '../files/engine.js';
import { makeFolders, withPinnedFile } from '../files/pinned.js';
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
    await makeFolders(path.dirname(destination.absolute));
    // Copied from the source as opened (pinned.ts) to a temporary name, then moved into place:
    // exclusively (link) when not overwriting, so a file that appears meanwhile is not clobbered.
    const place = args.overwrite ? writeFileAtomic : createFileExclusive;
    const notAFile = () =>
      new ToolError(`${shownSource} is not a file: copy_file copies single files.`, 'not_found');
    const copied = await withPinnedFile(source.absolute, notAFile, async (from, opened) => {
      const hash = createHash('sha256');
      let bytes = 0;
      const copy = async (to: FileHandle) => {
        for await (const chunk of from.createReadStream({ autoClose: false })) {
          hash.update(chunk as Buffer);
          bytes += (chunk as Buffer).length;
          await to.writeFile(chunk as Buffer);
        }
      };
      await place(destination.absolute, copy, opened.mode & 0o7777).catch((error) => {
        if (errnoCode(error) === 'EEXIST')
          throw new ToolError(
            `${shownDestination} appeared meanwhile: set overwrite to true to replace it.`,
            'exists',
          );
        throw error;
      });
      return { bytes, sha256: hash.digest('hex') };
    });
    return {
      source: shownSource,
      destination: shownDestination,
      ...copied,
      replaced: existing !== undefined,
    };
  },
});
