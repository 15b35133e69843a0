import type { AnyToolDefinition } from '@toolmesh/core';
import type { RepositorySet } from '../repository/repository-set.js';
import { gitBranch } from './branch.js';
import { gitBranches } from './branches.js';
import { gitCommit } from './commit.js';
import { gitDiff } from './diff.js';
import { gitGrep } from './grep.js';
import { gitHistory } from './history.js';
import { gitRepos } from './repos.js';
import { gitRestore } from './restore.js';
import { gitStage } from './stage.js';
import { gitStash } from './stash.js';
import { gitStatus } from './status.js';

export const GIT_TOOLS: readonly AnyToolDefinition<RepositorySet>[] = [
  gitRepos,
  gitStatus,
  gitDiff,
  gitHistory,
  gitBranches,
  gitGrep,
  gitStage,
  gitCommit,
  gitBranch,
  gitStash,
  gitRestore,
];
