import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

export type BwrapAvailability =
  | {
      available: true;
      path: string;
      /** Whether this bwrap can also forbid new user namespaces inside (bubblewrap 0.8+). */
      disableUserns: boolean;
    }
  | { available: false; reason: string };

/** What to tell a person whose machine has no usable bwrap. */
export const INSTALL_BWRAP =
  'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)';

/** The variable that names a bwrap to use instead of the one on PATH. */
export const BWRAP_VARIABLE = 'TOOLMESH_BWRAP';

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` on `searchPath`, like a shell's lookup. */
export function findOnPath(name: string, searchPath: string | undefined): string | undefined {
  for (const folder of (searchPath ?? '').split(path.delimiter)) {
    if (!folder) continue;
    const candidate = path.join(folder, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function runsSandbox(bwrap: string, flags: string[]): { ok: true } | { ok: false; stderr: string } {
  // `true` through the host's own root: this checks namespaces and mounts, nothing else.
  const result = spawnSync(bwrap, [...flags, '--ro-bind', '/', '/', 'true'], {
    env: { PATH: '/usr/bin:/bin' },
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (result.status === 0) return { ok: true };
  const stderr = (result.stderr || result.error?.message || `exit status ${result.status}`).trim();
  return { ok: false, stderr };
}

/** Checked once per bwrap path: the probe spawns a sandbox, which costs a few milliseconds. */
const checked = new Map<string, BwrapAvailability>();

function check(bwrap: string): BwrapAvailability {
  const full = runsSandbox(bwrap, [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
  ]);
  if (full.ok) return { available: true, path: bwrap, disableUserns: true };
  // Older bubblewrap lacks --disable-userns; it still sandboxes, without that last lock.
  const basic = runsSandbox(bwrap, ['--unshare-all', '--die-with-parent']);
  if (basic.ok) return { available: true, path: bwrap, disableUserns: false };
  return {
    available: false,
    reason: `${bwrap} cannot create a sandbox on this machine (are unprivileged user namespaces disabled?): ${basic.stderr}`,
  };
}

/**
 * The bwrap that sandboxes run under: `TOOLMESH_BWRAP` when set, else `bwrap` on PATH. One that
 * exists but cannot create namespaces (a container without user namespaces, a sysctl that
 * forbids them) counts as unavailable, with what it printed as the reason.
 */
export function findBwrap(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): BwrapAvailability {
  if (platform !== 'linux')
    return { available: false, reason: `bubblewrap sandboxes need Linux namespaces; this is ${platform}` };
  const chosen = env[BWRAP_VARIABLE];
  let bwrap: string;
  if (chosen) {
    bwrap = path.resolve(chosen);
    if (!isExecutableFile(bwrap))
      return { available: false, reason: `${BWRAP_VARIABLE} is ${chosen}, which is not an executable file` };
  } else {
    const found = findOnPath('bwrap', env.PATH);
    if (!found) return { available: false, reason: 'bwrap (bubblewrap) is not installed: it is not on PATH' };
    bwrap = found;
  }
  let availability = checked.get(bwrap);
  if (!availability) {
    availability = check(bwrap);
    checked.set(bwrap, availability);
  }
  return availability;
}
