/** The fs server's program: what its bin runs, and what a server host runs beside others. */
import { DEFAULT_DENY, type DenyRules, packageVersion, type ServerProgram, UsageError } from '@toolmesh/core';
import { z } from 'zod';
import {
  CheckpointStore,
  createFsServer,
  DEFAULT_MAX_FILE_BYTES,
  defaultCheckpointFile,
  FS_SERVER_NAME,
  FS_SUMMARY,
} from './server.js';

const fsConfig = z.object({
  readOnly: z.boolean().optional(),
  maxFileBytes: z.number().int().positive().optional(),
  deny: z.object({ read: z.array(z.string()), write: z.array(z.string()) }).optional(),
});

function readFsConfig(config: Record<string, unknown> | undefined) {
  const parsed = fsConfig.safeParse({
    readOnly: config?.readOnly,
    maxFileBytes: config?.maxFileBytes,
    deny: config?.deny,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`config key "${issue?.path.join('.')}": ${issue?.message}`);
  }
  return parsed.data;
}

export const program: ServerProgram = {
  name: FS_SERVER_NAME,
  version: packageVersion(import.meta.url),
  summary: `${FS_SUMMARY} Without --root it follows the client's MCP roots.`,
  flags: {
    'read-only': { type: 'boolean', description: 'register only the reading tools' },
    'max-file-bytes': {
      type: 'string',
      value: 'N',
      description: `largest file read_file reads (default ${DEFAULT_MAX_FILE_BYTES})`,
    },
  },
  setup(flags, extra, log) {
    const config = readFsConfig(flags.config);
    const maxText = extra['max-file-bytes'] as string | undefined;
    if (maxText !== undefined && !/^\d+$/.test(maxText)) {
      throw new UsageError(`--max-file-bytes must be a whole number of bytes, not "${maxText}"`);
    }
    const deny: DenyRules = config.deny ?? DEFAULT_DENY;
    const checkpoints = new CheckpointStore(flags.db ?? defaultCheckpointFile());
    const options = {
      roots: flags.roots,
      checkpoints,
      readOnly: extra['read-only'] === true || config.readOnly === true,
      deny,
      maxFileBytes: maxText !== undefined ? Number(maxText) : (config.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES),
      log,
    };
    if (flags.roots.length === 0) log.info("no --root given: following the client's MCP roots");
    return { createServer: () => createFsServer(options), close: () => checkpoints.close() };
  },
};
