import { errnoCode, ToolError, withContent } from '@toolmesh/core';
import { z } from 'zod';
import { displayPath } from '../files/engine.js';
import { imageType } from '../files/file-kind.js';
import { withPinnedFile } from '../files/pinned.js';
import { defineTool, READ_ONLY } from './define.js';

const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

export const viewImage = defineTool({
  name: 'view_image',
  title: 'View an image',
  description:
    'Returns a PNG, JPEG, GIF or WEBP file as MCP image content, so a model can look at it. The type is read from the file, not its name.',
  capability: 'read',
  input: z.object({ path: z.string().describe('An image file inside the roots.') }),
  output: z.object({ path: z.string(), mimeType: z.string(), bytes: z.number().int() }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) => `${output.path}: ${output.mimeType}, ${output.bytes} bytes`,
  async handle({ path }, { engine }) {
    const guard = await engine.roots.guard();
    const resolved = guard.resolve(path, 'read');
    const shown = displayPath(guard, resolved.absolute);
    const notAFile = () => new ToolError(`${shown} is not a file.`, 'not_found');
    const data = await withPinnedFile(resolved.absolute, notAFile, async (handle, stat) => {
      if (stat.size > MAX_IMAGE_BYTES) {
        throw new ToolError(
          `${shown} is ${stat.size} bytes; view_image returns images up to ${MAX_IMAGE_BYTES} bytes.`,
          'too_large',
        );
      }
      return handle.readFile();
    }).catch((error) => {
      if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') throw notAFile();
      throw error;
    });
    const mimeType = imageType(data);
    if (!mimeType) {
      throw new ToolError(
        `${shown} is not a PNG, JPEG, GIF or WEBP image: use read_file for text, stat_file for anything else.`,
        'not_an_image',
      );
    }
    return withContent({ path: shown, mimeType, bytes: data.length }, [
      { type: 'image', data: data.toString('base64'), mimeType },
    ]);
  },
});
