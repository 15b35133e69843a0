import { toolDefiner } from '@toolmesh/core';
import { z } from 'zod';
import type { FsEngine } from '../files/engine.js';

export const defineTool = toolDefiner<FsEngine>();

/** The annotations of a tool that only reads inside the roots. */
export { READ_ONLY_ANNOTATIONS as READ_ONLY } from '@toolmesh/core';

/** The per-call override of the largest file a tool reads; what it does with larger ones it says itself. */
export const maxFileBytesArg = (what: string) =>
  z
    .number()
    .int()
    .min(1)
    .max(64 * 1024 * 1024)
    .optional()
    .describe(`${what} (default 2 MiB, at most 64 MiB).`);
