import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { languageOf } from './languages.js';

/** Files larger than this are generated or vendored far more often than written: skipped. */
export const MAX_INDEXED_BYTES = 1024 * 1024;

/** Never indexed, whatever .gitignore says. */
const ALWAYS_SKIPPED = new Set(['node_modules', '.git']);

/**
 * The .gitignore files of a tree, each applied to the paths under its own folder as git does.
 * Loaded lazily and kept until `forget()` (called when a .gitignore changes).
 */
export class IgnoreRules {
  private readonly byFolder = new Map<string, Ignore | null>();

  constructor(private readonly root: string) {}

  forget(): void {
    this.byFolder.clear();
  }

  private rulesOf(folder: string): Ignore | null {
    let rules = this.byFolder.get(folder);
    if (rules === undefined) {
      try {
        rules = ignore().add(readFileSync(path.join(this.root, folder, '.gitignore'), 'utf8'));
      } catch {
        rules = null;
      }
      this.byFolder.set(folder, rules);
    }
    return rules;
  }

  /** Whether a root-relative posix path is skipped, by name or by a .gitignore above it. */
  ignores(relative: string, isDirectory: boolean): boolean {
    const parts = relative.split('/');
    if (parts.some((part) => ALWAYS_SKIPPED.has(part))) return true;
    for (let depth = 0; depth < parts.length; depth++) {
      const folder = parts.slice(0, depth).join('/');
      const rules = this.rulesOf(folder);
      if (!rules) continue;
      const inside = parts.slice(depth).join('/');
      if (rules.ignores(isDirectory ? `${inside}/` : inside)) return true;
    }
    return false;
  }
}

export interface ScannedFile {
  /** Root-relative, posix separators. */
  path: string;
  bytes: number;
}

/**
 * Every file under `folder` (root-relative, '' for the root) that some language parses, not
 * ignored and not over the size limit, and the files whose name `alsoNamed` accepts. Symlinks are
 * not followed, so nothing outside the root is read and no link cycle loops.
 */
export async function scanTree(
  root: string,
  rules: IgnoreRules,
  folder = '',
  alsoNamed: (name: string) => boolean = () => false,
): Promise<ScannedFile[]> {
  const found: ScannedFile[] = [];
  const pending = [folder];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(path.join(root, current), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const relative = current ? `${current}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!rules.ignores(relative, true)) pending.push(relative);
      } else if (
        entry.isFile() &&
        (languageOf(entry.name) || alsoNamed(entry.name)) &&
        !rules.ignores(relative, false)
      ) {
        const stat = await fs.stat(path.join(root, relative)).catch(() => undefined);
        if (stat && stat.size <= MAX_INDEXED_BYTES) found.push({ path: relative, bytes: stat.size });
      }
    }
  }
  return found.sort((a, b) => a.path.localeCompare(b.path));
}

/** The folders of a tree that are not ignored, root first: what a per-folder watcher watches. */
export async function scanFolders(root: string, rules: IgnoreRules, folder = ''): Promise<string[]> {
  const folders: string[] = [];
  const pending = [folder];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    folders.push(current);
    const entries = await fs.readdir(path.join(root, current), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const relative = current ? `${current}/${entry.name}` : entry.name;
      if (entry.isDirectory() && !rules.ignores(relative, true)) pending.push(relative);
    }
  }
  return folders;
}
