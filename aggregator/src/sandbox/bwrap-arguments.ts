import { systemFolderArguments } from './system-folders.js';

/** Everything a sandbox shows and runs, with every path already resolved on the host. */
export interface SandboxLayout {
  network: boolean;
  /** Forbid new user namespaces inside (needs bubblewrap 0.8+). */
  disableUserns: boolean;
  /** The program's own folders and files (its package, node_modules, Node), bound read-only. */
  programPaths: readonly string[];
  /** The folders the program works on, bound at the same path. */
  roots: readonly string[];
  writableRoots: boolean;
  /** Folders bound read-write whatever `writableRoots` says: the server's data folder. */
  writableFolders: readonly string[];
  /**
   * Places inside the sandbox where a bound folder shows something that must stay unseen
   * (toolmesh's own state), each covered by an empty tmpfs.
   */
  hiddenFolders: readonly string[];
  /** A private, empty home. */
  home: string;
  /**
   * Everything but the roots and the writable folders read-only: a write elsewhere fails where
   * it is made, rather than landing in a private tmpfs (/tmp, home) that vanishes with the sandbox.
   */
  readOnlyOutside: boolean;
  cwd: string;
  /** Variables the spawner adds to bwrap's own environment that must not reach the program. */
  unsetVariables: readonly string[];
  command: string;
  args: readonly string[];
}

/**
 * The bwrap command line for a layout. Mounts are applied in order, so the order is the policy:
 * system folders, then fresh /proc, /dev, /tmp and home, then the program, then the roots (a
 * root inside the program's folders keeps its own mode), then the data folder, then the hidden
 * folders over all of it, then (when asked) the sandbox's own folders made read-only.
 */
export function bwrapArguments(layout: SandboxLayout): string[] {
  const args: string[] = [
    // user, ipc, pid, net, uts and cgroup namespaces: the program sees no other process.
    '--unshare-all',
    ...(layout.disableUserns ? ['--unshare-user', '--disable-userns'] : []),
    ...(layout.network ? ['--share-net'] : []),
    // If toolmesh dies, even by SIGKILL, the kernel kills the sandbox with it.
    '--die-with-parent',
    // Run as root (CI, containers), bwrap would hand the program every capability. The uid stays
    // the caller's: files it writes to a writable root belong to them, and getpwuid still works.
    '--cap-drop',
    'ALL',
    // A new session: no controlling terminal to push keystrokes into (TIOCSTI).
    '--new-session',
  ];
  // The environment reaches the program through bwrap's own, not as --setenv arguments: a
  // command line is readable by every user of the machine, and entries pass tokens in `env`.
  for (const name of layout.unsetVariables) args.push('--unsetenv', name);
  args.push(...systemFolderArguments(layout.network));
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--tmpfs', layout.home);
  for (const program of layout.programPaths) args.push('--ro-bind', program, program);
  for (const root of layout.roots) args.push(layout.writableRoots ? '--bind' : '--ro-bind', root, root);
  for (const folder of layout.writableFolders) args.push('--bind', folder, folder);
  for (const folder of layout.hiddenFolders) args.push('--tmpfs', folder);
  // Last, once every mount point inside them is made: each remount covers that mount alone.
  if (layout.readOnlyOutside)
    for (const scratch of ['/tmp', layout.home, ...layout.hiddenFolders, '/'])
      args.push('--remount-ro', scratch);
  args.push('--chdir', layout.cwd, '--', layout.command, ...layout.args);
  return args;
}
