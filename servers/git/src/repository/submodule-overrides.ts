import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/** An index entry's mode for a gitlink (0o160000) as the index stores it: 32 bits, big-endian. */
const GITLINK_MODE = Buffer.from([0x00, 0x00, 0xe0, 0x00]);

/** Lists the keys of a config text (`git config --file - --list --name-only`), or of a blob. */
export type ConfigKeys = (source: { text: string } | { blob: string }) => Promise<string[]>;

/**
 * A dirty check of a submodule runs `git status` inside it, under the submodule's own config,
 * whose filters no override of the outer repository's names; `diff.ignoreSubmodules` keeps git
 * out, but a `submodule.<name>.ignore` in .gitmodules beats it. So each submodule that .gitmodules
 * names gets `ignore = dirty` where git reads it last. .gitmodules is a file of the work tree that
 * anyone may edit, so it is read for every command; an index with no gitlink (the usual case,
 * kept per index file) has no submodule to look into, and costs one stat.
 */
export class SubmoduleOverrides {
  #index: { signature: string; hasGitlink: boolean } | undefined;

  constructor(
    private readonly top: string,
    private readonly gitDir: string,
    private readonly configKeys: ConfigKeys,
  ) {}

  async overrides(): Promise<[string, string][]> {
    if (!(await this.#indexHasGitlink())) return [];
    const names = new Set<string>();
    for (const key of await this.#gitmodulesKeys()) {
      const name = key.slice('submodule.'.length, key.lastIndexOf('.'));
      if (key.startsWith('submodule.') && name !== '') names.add(name);
    }
    return [...names].map((name) => [`submodule.${name}.ignore`, 'dirty']);
  }

  async #indexHasGitlink(): Promise<boolean> {
    const file = path.join(this.gitDir, 'index');
    const seen = await stat(file).catch(() => undefined);
    if (!seen) return false;
    const signature = `${seen.ino}:${seen.size}:${seen.mtimeMs}`;
    if (this.#index?.signature !== signature) {
      // A chance match of these bytes elsewhere in the index only costs a read of .gitmodules.
      const bytes = await readFile(file).catch(() => Buffer.alloc(0));
      this.#index = { signature, hasGitlink: bytes.includes(GITLINK_MODE) };
    }
    return this.#index.hasGitlink;
  }

  /** The keys of the .gitmodules git reads: the work tree's, else the index's, else HEAD's. */
  async #gitmodulesKeys(): Promise<string[]> {
    const text = await readFile(path.join(this.top, '.gitmodules'), 'utf8').catch(() => undefined);
    if (text !== undefined) return this.configKeys({ text }).catch(() => []);
    for (const blob of [':.gitmodules', 'HEAD:.gitmodules']) {
      const keys = await this.configKeys({ blob }).catch(() => undefined);
      if (keys) return keys;
    }
    return [];
  }
}
