/** The git server's program: what its bin runs, and what a server host runs beside others. */
import { packageVersion, type ServerProgram, UsageError } from '@toolmesh/core';
import { createGitServer, GIT_SERVER_NAME, GIT_SUMMARY } from './server.js';

export const program: ServerProgram = {
  name: GIT_SERVER_NAME,
  version: packageVersion(import.meta.url),
  summary: `${GIT_SUMMARY} Read-only unless --allow-write. Without --root it works in the current folder.`,
  flags: {
    'allow-write': {
      type: 'boolean',
      description: 'also register git_stage, git_commit, git_branch, git_stash and git_restore',
    },
  },
  setup(flags, extra, log) {
    if (flags.config?.allowWrite !== undefined && typeof flags.config.allowWrite !== 'boolean') {
      throw new UsageError('config key "allowWrite": expected true or false');
    }
    const allowWrite = extra['allow-write'] === true || flags.config?.allowWrite === true;
    const roots = flags.roots.length > 0 ? flags.roots : [process.cwd()];
    if (flags.roots.length === 0) log.info(`no --root given: working in ${roots[0]}`);
    const options = { roots, allowWrite, log };
    log.debug(`roots ${roots.join(', ')}; ${allowWrite ? 'read and write tools' : 'read-only tools'}`);
    // Fails here, with the rule, rather than on the first call: a root that does not exist.
    createGitServer(options);
    return { createServer: () => createGitServer(options) };
  },
};
