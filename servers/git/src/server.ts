import { createLogger, createToolServer, type Logger, packageVersion, type ToolServer } from '@toolmesh/core';
import { RepositorySet } from './repository/repository-set.js';
import { GIT_TOOLS } from './tools/index.js';

export const GIT_SERVER_NAME = 'toolmesh-git';
export const GIT_SUMMARY = 'MCP git server confined to its roots.';

export interface GitServerOptions {
  /** Folders holding the repositories (a root may be a repository itself). */
  roots: readonly string[];
  /** Register the tools that change repositories too. */
  allowWrite?: boolean;
  log?: Logger;
}

/** What docs/servers/git.md is generated from. */
export const toolReference = {
  name: '@toolmesh/server-git',
  summary: `${GIT_SUMMARY} Every tool takes repo, a repository inside the roots given by --root; a repository whose work tree or git folder lies outside them is refused. git runs with an argument vector, never a shell, in a clean environment, with every setting that could start a program (fsmonitor, hooks, filters, merge and diff drivers, textconv, pager, editor, ssh, credential helpers, signing) neutralised. Reading tools carry the action class read; the writing ones (only with --allow-write) vcsWrite, and git_restore requires approval.`,
  tools: GIT_TOOLS,
};

export function gitTools(allowWrite = false) {
  return allowWrite ? GIT_TOOLS : GIT_TOOLS.filter((tool) => tool.capability === 'read');
}

/** One MCP server (one client session) over the git tools. No I/O happens until a tool runs. */
export function createGitServer(options: GitServerOptions): ToolServer {
  const log = options.log ?? createLogger({ scope: GIT_SERVER_NAME });
  return createToolServer({
    name: GIT_SERVER_NAME,
    version: packageVersion(import.meta.url),
    title: 'toolmesh git',
    instructions: options.allowWrite
      ? 'Git repositories inside the configured roots. Find them with git_repos; inspect with git_status, git_diff, git_history, git_branches, git_grep; change them with git_stage, git_commit, git_branch, git_stash and git_restore (which saves what it discards as a stash). There is no push, no reset --hard and no config write.'
      : 'Git repositories inside the configured roots, read-only. Find them with git_repos; inspect with git_status, git_diff, git_history, git_branches and git_grep.',
    tools: gitTools(options.allowWrite),
    engine: new RepositorySet(options.roots),
    log,
  });
}

export { RepositorySet } from './repository/repository-set.js';
export { GIT_TOOLS } from './tools/index.js';
