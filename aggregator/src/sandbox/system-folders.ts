import { lstatSync, readlinkSync } from 'node:fs';

/** Programs and their libraries. On merged-/usr systems the others are symlinks into /usr. */
export const SYSTEM_FOLDERS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * The pieces of /etc every program may need: the dynamic linker's cache (Debian's multiarch
 * library folders are found only through it), /etc/alternatives (Debian's command symlinks),
 * user and group names (no passwords: /etc/shadow stays out), and the local time zone.
 */
const ETC_ALWAYS = [
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/localtime',
];

/**
 * The font configuration and its cache: without them fontconfig scans every font at a program's
 * first text (openbox in the rigs server took 5.5 s to show a first window, 0.26 s with them).
 */
const FONT_CONFIG = ['/etc/fonts', '/var/cache/fontconfig'];

/** Name resolution and TLS trust, for servers that may use the network. */
const ETC_NETWORK = [
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/host.conf',
  '/etc/gai.conf',
  '/etc/services',
  '/etc/protocols',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/pki',
  '/etc/crypto-policies',
];

function symlinkTarget(file: string): string | undefined {
  try {
    return lstatSync(file).isSymbolicLink() ? readlinkSync(file) : undefined;
  } catch {
    return undefined;
  }
}

/** The host paths of system folders and /etc files a sandbox shows at their own paths, read-only. */
export function systemBinds(network: boolean): string[] {
  const folders = SYSTEM_FOLDERS.filter((folder) => symlinkTarget(folder) === undefined);
  return [...folders, ...ETC_ALWAYS, ...FONT_CONFIG, ...(network ? ETC_NETWORK : [])];
}

/**
 * bwrap arguments that show the host's system folders read-only: a top-level symlink (/bin →
 * usr/bin) is recreated as the same symlink, everything else bound if it exists.
 */
export function systemFolderArguments(network: boolean): string[] {
  const args: string[] = [];
  for (const folder of SYSTEM_FOLDERS) {
    const target = symlinkTarget(folder);
    if (target !== undefined) args.push('--symlink', target, folder);
  }
  for (const bound of systemBinds(network)) args.push('--ro-bind-try', bound, bound);
  return args;
}
