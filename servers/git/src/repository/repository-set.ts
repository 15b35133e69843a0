import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { isInside, PathGuard, PathRefusal, ToolError } from '@toolmesh/core';
import { alternateObjectStores } from './alternate-object-stores.js';
import { type GitFolders, gitFoldersOf } from './git-folder.js';
import { Repository } from './repository.js';

/** Repositories are located by real path only; secrets inside them are the secret scanner's business. */
const NO_DENY = { read: [], write: [] };

/** The roots of a server and the repositories inside them: every tool gets its repository here. */
export class RepositorySet {
  readonly guard: PathGuard;

  constructor(
    roots: readonly string[],
    private readonly environment: NodeJS.ProcessEnv = process.env,
  ) {
    this.guard = new PathGuard(roots, NO_DENY);
  }

  get roots(): string[] {
    return this.guard.realRoots;
  }

  /** How a folder is named in answers: relative to the first root ('.' for it), else absolute. */
  shown(absolute: string): string {
    const primary = this.roots[0];
    if (primary && isInside(primary, absolute)) {
      const relative = path.relative(primary, absolute).split(path.sep).join('/');
      return relative === '' ? '.' : relative;
    }
    return absolute;
  }

  /** A found repository, unless its git folders lie outside the roots. */
  repositoryAt(top: string): Repository | undefined {
    const folders = gitFoldersOf(top);
    if (!folders) return undefined;
    try {
      return this.open(top, folders, this.shown(top));
    } catch {
      return undefined;
    }
  }

  private open(top: string, folders: GitFolders, named: string): Repository {
    const borrowed = alternateObjectStores(path.join(folders.commonDir, 'objects'));
    for (const [what, where] of [
      ['git folder', folders.gitDir],
      ['object store', folders.commonDir],
      ...borrowed.map((store) => ['alternate object store', store] as const),
    ] as const) {
      if (!this.roots.some((root) => isInside(root, where))) {
        throw new PathRefusal(
          'git-dir-outside-roots',
          `repo "${named}" refused: its ${what} is ${where}, outside the roots (${this.roots.join(', ')})`,
        );
      }
    }
    return new Repository(top, folders.gitDir, folders.commonDir, this.shown(top), this.environment);
  }

  /**
   * The repository holding `input` (relative to the first root, or absolute; default the first
   * root). Its work tree and its git folders must all lie inside the roots.
   */
  repository(input?: string): Repository {
    if (input?.startsWith('-')) {
      throw new PathRefusal('leading-dash', `repo "${input}" refused: it begins with "-". Write ./${input}`);
    }
    const resolved = this.guard.resolve(input ?? (this.roots[0] as string), 'read');
    let folder = resolved.absolute;
    if (!existsSync(folder)) {
      throw new ToolError(
        `repo "${input}" does not exist: list the repositories with git_repos.`,
        'not_found',
      );
    }
    if (!statSync(folder).isDirectory()) folder = path.dirname(folder);
    const named = input ?? this.shown(resolved.root);
    for (let at = folder; isInside(resolved.root, at); at = path.dirname(at)) {
      const folders = gitFoldersOf(at);
      if (folders) return this.open(at, folders, named);
      if (at === path.dirname(at)) break;
    }
    for (let at = path.dirname(resolved.root); at !== path.dirname(at); at = path.dirname(at)) {
      if (gitFoldersOf(at)) {
        throw new PathRefusal(
          'repository-outside-roots',
          `repo "${named}" refused: it belongs to the repository at ${at}, whose top folder lies outside the roots (${this.roots.join(', ')}). Start the server with --root ${at} to work on it`,
        );
      }
    }
    throw new ToolError(
      `"${named}" is not inside a git repository: list the repositories under the roots with git_repos.`,
      'not_a_repository',
    );
  }
}
