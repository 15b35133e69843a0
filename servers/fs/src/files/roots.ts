import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DenyRules, isInside, PathGuard, ToolError } from '@toolmesh/core';

/** A folder's real path (symlinks followed); undefined when it does not exist. */
function realFolder(folder: string): string | undefined {
  try {
    return realpathSync.native(folder);
  } catch {
    return undefined;
  }
}

/** Where two sets of folders overlap: for each pair, the deeper folder when one holds the other. */
export function intersectRoots(configured: readonly string[], offered: readonly string[]): string[] {
  const result = new Set<string>();
  for (const mine of configured) {
    for (const theirs of offered) {
      if (isInside(mine, theirs)) result.add(theirs);
      else if (isInside(theirs, mine)) result.add(mine);
    }
  }
  return [...result];
}

/**
 * The real paths of the folders a client offers as roots, those that exist: a root that is a
 * symlink is taken as the folder it points at, so one inside a configured root that points
 * outside it overlaps nothing.
 */
export function rootUrisToPaths(uris: readonly string[]): string[] {
  return uris.flatMap((uri) => {
    try {
      const folder = realFolder(path.resolve(fileURLToPath(uri)));
      return folder === undefined ? [] : [folder];
    } catch {
      return [];
    }
  });
}

/**
 * The folders a session may touch. Configured roots (--root) rule; the client's MCP roots are a
 * fallback when none is configured, and narrow the configured ones when both exist.
 */
export class RootSet {
  private offered: string[] | undefined;
  private current: PathGuard | undefined;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly configured: readonly string[],
    private readonly deny?: DenyRules,
  ) {
    if (configured.length > 0) this.current = new PathGuard(configured, deny);
  }

  /** Records the client's roots (file:// URIs); undefined when the client has no roots. */
  offer(uris: readonly string[] | undefined): void {
    this.offered = uris ? rootUrisToPaths(uris) : undefined;
    const effective =
      this.offered === undefined
        ? [...this.configured]
        : this.configured.length === 0
          ? this.offered
          : intersectRoots(
              this.configured.map((folder) => realFolder(folder) ?? folder),
              this.offered,
            );
    this.current = effective.length > 0 ? new PathGuard(effective, this.deny) : undefined;
  }

  /** Makes `guard()` wait for an update under way (a `roots/list` round trip). */
  track(update: Promise<void>): void {
    this.pending = update.finally(() => {
      if (this.pending === tracked) this.pending = undefined;
    });
    const tracked = this.pending;
  }

  async guard(): Promise<PathGuard> {
    if (this.pending) await this.pending;
    if (this.current) return this.current;
    if (this.configured.length > 0) {
      throw new ToolError(
        `None of the client's roots lies inside the server's roots (${this.configured.join(', ')}): open a folder inside them in the client.`,
        'no_roots',
      );
    }
    throw new ToolError(
      'No root to work in: the server was started without --root and the client offered no roots. Restart the server with --root DIR, or add a root in the client.',
      'no_roots',
    );
  }
}
