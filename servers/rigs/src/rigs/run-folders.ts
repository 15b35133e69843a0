import { existsSync, lstatSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { endRigProcesses, processAlive } from './process-group.js';

/** The longest TMPDIR that leaves room for a socket a program binds under it (Chromium's singleton). */
const MAX_SOCKET_TEMP = 56;

/** Where short links to rigs' tmp folders live: /tmp, since the server's own TMPDIR is inside its (long) run folder. */
const LINK_FOLDER = '/tmp';

/** Where the short link to a rig's tmp folder lives, whether or not it was needed. */
function tempLinkOf(rigFolder: string): string {
  return path.join(LINK_FOLDER, `toolmesh-${path.basename(rigFolder)}`);
}

/**
 * Removes short links whose rig folder is gone, whatever data directory it was in: a server
 * killed while closing leaves its link, and its folder may be deleted by someone else.
 */
function removeDanglingLinks(): void {
  let names: string[];
  try {
    names = readdirSync(LINK_FOLDER).filter((name) => /^toolmesh-rig-[0-9a-f]+$/.test(name));
  } catch {
    return;
  }
  for (const name of names) {
    const link = path.join(LINK_FOLDER, name);
    if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink() && !existsSync(link)) {
      rmSync(link, { force: true });
    }
  }
}

/**
 * A TMPDIR for a rig's program that binds a unix socket under it: the rig's tmp folder, or when
 * that path is too long for a socket path's 107 bytes (full Chromium aborts: "Socket path too
 * long"), a short link to it in the system temp folder, named for the rig and removed with it.
 */
export function socketTemp(rigFolder: string): string {
  const tmp = path.join(rigFolder, 'tmp');
  if (Buffer.byteLength(tmp) <= MAX_SOCKET_TEMP) return tmp;
  const link = tempLinkOf(rigFolder);
  rmSync(link, { force: true });
  symlinkSync(tmp, link);
  return link;
}

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
    removeDanglingLinks();
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
      for (const rig of readdirSync(folder)) {
        leftovers(path.join(folder, rig));
        rmSync(tempLinkOf(path.join(folder, rig)), { force: true });
      }
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
    rmSync(tempLinkOf(folder), { force: true });
  }

  /** Removes this server's own folder, when the last rig is gone at shutdown. */
  removeOwner(): void {
    rmSync(this.owner, { recursive: true, force: true });
  }
}
