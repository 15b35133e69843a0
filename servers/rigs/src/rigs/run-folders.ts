import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { endRigProcesses, processAlive } from './process-group.js';

/**
 * The folders rigs live in: `<data>/rigs/run/<server pid>-<nonce>/<rig id>/`, one owner folder
 * per running server, so several servers can share a data directory and a server starting up
 * sweeps only what dead ones left.
 */
export class RunFolders {
  readonly owner: string;

  constructor(readonly root: string) {
    this.owner = path.join(root, `${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  }

  /**
   * Removes the folders (and ends any process) of servers that are no longer running; `leftovers`
   * cleans what a rig left outside its folder, given the rig's folder.
   */
  async sweep(leftovers: (rigFolder: string) => void = () => undefined): Promise<string[]> {
    let entries: string[];
    try {
      entries = readdirSync(this.root);
    } catch {
      return [];
    }
    const swept: string[] = [];
    for (const entry of entries) {
      const pid = Number(entry.split('-')[0]);
      const folder = path.join(this.root, entry);
      if (folder === this.owner || (Number.isInteger(pid) && pid > 0 && processAlive(pid))) continue;
      await endRigProcesses(folder, [], 500);
      for (const rig of readdirSync(folder)) leftovers(path.join(folder, rig));
      rmSync(folder, { recursive: true, force: true });
      swept.push(folder);
    }
    return swept;
  }

  /** A fresh folder for one rig, with its profile, downloads and temp folders. */
  create(rigId: string): string {
    const folder = path.join(this.owner, rigId);
    for (const part of ['profile', 'downloads', 'tmp'])
      mkdirSync(path.join(folder, part), { recursive: true });
    return folder;
  }

  /** A temp folder for the server itself, inside its owner folder, so a sweep takes it too. */
  serverTemp(): string {
    const folder = path.join(this.owner, '.tmp');
    mkdirSync(folder, { recursive: true });
    return folder;
  }

  remove(folder: string): void {
    rmSync(folder, { recursive: true, force: true });
  }

  /** Removes this server's own folder, when the last rig is gone at shutdown. */
  removeOwner(): void {
    rmSync(this.owner, { recursive: true, force: true });
  }
}
