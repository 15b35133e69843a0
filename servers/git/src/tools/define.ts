import { toolDefiner } from '@toolmesh/core';
import { z } from 'zod';
import type { RepositorySet } from '../repository/repository-set.js';

export const defineTool = toolDefiner<RepositorySet>();

/** The annotations of a tool that only reads repositories inside the roots. */
/** Commits, stashes and branches change a repository but lose nothing. */
export {
  READ_ONLY_ANNOTATIONS as READ_ONLY,
  RECOVERABLE_WRITE_ANNOTATIONS as RECOVERABLE_WRITE,
} from '@toolmesh/core';

export const repoArg = z
  .string()
  .optional()
  .describe(
    'The repository: a folder relative to the first root, or absolute, inside the roots (default: the first root). A folder inside a repository means that repository. List them with git_repos.',
  );

export const pathsArg = (what: string) =>
  z
    .array(z.string().min(1))
    .max(500)
    .describe(`${what} Relative to the repository's top folder; literal paths (no globs), files or folders.`);

export const revisionArg = (what: string) =>
  z.string().min(1).max(256).describe(`${what} A branch, tag, commit hash or expression such as HEAD~3.`);
