import { mkdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { dataDirectory, isInside } from '@toolmesh/core';
import { bwrapArguments } from './bwrap-arguments.js';
import { nodePaths, outermost, programFiles, programPaths, resolveCommand } from './program-folders.js';
import { sandboxEnvironment } from './sandbox-environment.js';
import { AGGREGATOR_DATA_SUBFOLDER, serverDataFolders } from './server-data-folder.js';
import { SYSTEM_FOLDERS, systemBinds } from './system-folders.js';

/** The home inside every sandbox: an empty tmpfs, gone when the sandbox ends. */
export const SANDBOX_HOME = '/home/sandbox';

export interface SandboxRequest {
  command: string;
  args: readonly string[];
  /** The folders the program works on; relative ones are relative to `cwd`. */
  roots: readonly string[];
  writableRoots: boolean;
  /** Make /tmp, home and the rest outside the roots read-only, so a write there fails visibly (default: a private writable /tmp and home). */
  readOnlyOutsideRoots?: boolean;
  network: boolean;
  /** Variables the program is given by name (a server entry's `env`); they pass whatever they are. */
  env: Readonly<Record<string, string>>;
  /** Where the program starts (default: the current folder), if the sandbox can see it. */
  cwd?: string;
  /** Where allowlisted variables (PATH, LANG, …) come from; default: this process's environment. */
  inherited?: NodeJS.ProcessEnv;
  /** Variables the spawner will add to bwrap's environment on its own, to be removed inside. */
  ambientVariables?: readonly string[];
  /** Modules the program loads beside its own files: a server host's hosted server programs. */
  hostedPrograms?: readonly string[];
}

/** A command line to spawn as it is: bwrap, its arguments, and the environment to give it. */
export interface SandboxedCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The sandbox cannot be set up as asked (a root that does not exist); the message says which. */
export class SandboxSetupError extends Error {}

function existingFolder(folder: string): string {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(folder);
  } catch {
    throw new SandboxSetupError(`the sandbox root ${folder} does not exist`);
  }
  if (!stats.isDirectory()) throw new SandboxSetupError(`the sandbox root ${folder} is not a folder`);
  return folder;
}

/**
 * toolmesh's own state folder, `<data>/aggregator`, by real path. It is made now if it is not
 * there yet: a folder toolmesh creates later, while the sandbox runs, would appear in it uncovered.
 */
function stateFolder(data: string): string {
  const folder = path.join(data, AGGREGATOR_DATA_SUBFOLDER);
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new SandboxSetupError(
      `cannot create ${folder}, toolmesh's state folder, to keep it out of the sandbox: ${(error as Error).message}`,
    );
  }
  return realpathSync(folder);
}

/**
 * Where inside the sandbox the state folder shows, given the host paths bound at their own paths:
 * below a bound path, at the state folder's path relative to that path's real one. Plain paths
 * are not enough: a symlink on either side (a linked data directory, a root given through a link)
 * makes them differ while the bind shows the folder all the same.
 */
function stateFolderPlaces(bound: readonly string[], state: string): string[] {
  const places = new Set<string>();
  for (const host of bound) {
    const real = realpathOrUndefined(host);
    if (real === undefined) continue;
    if (isInside(state, real))
      throw new SandboxSetupError(`${host} is inside ${state}, toolmesh's own state, which no sandbox sees`);
    if (isInside(real, state)) places.add(path.join(host, path.relative(real, state)));
  }
  return [...places];
}

/** Undefined for a path that is not there: bwrap skips such a system file (--ro-bind-try). */
function realpathOrUndefined(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

/**
 * The path the sandbox executes: a system command as found (/usr/bin/git), anything else by
 * its real path, since only real paths of program folders are bound (a ~/.local/bin symlink is not).
 */
function commandInside(
  command: string,
  searchPath: string | undefined,
  cwd: string,
  underSystem: (file: string) => boolean,
): string {
  const found = resolveCommand(command, searchPath, cwd);
  if (!found) return command;
  return underSystem(found) ? found : realpathSync(found);
}

/**
 * Wraps a command line in a bubblewrap sandbox: read-only system and program folders, the roots
 * (read-write only when `writableRoots`), a first-party server's own data folder, private /tmp
 * and home, no network unless asked, its own PID namespace, and only allowlisted variables.
 */
export function sandboxedCommand(
  request: SandboxRequest,
  bwrap: { path: string; disableUserns: boolean },
): SandboxedCommand {
  const hostCwd = path.resolve(request.cwd ?? process.cwd());
  const inherited = request.inherited ?? process.env;
  const searchPath = request.env.PATH ?? inherited.PATH;
  const roots = request.roots.map((root) => existingFolder(path.resolve(hostCwd, root)));

  const files = [
    ...programFiles(request.command, request.args, { searchPath, cwd: hostCwd }),
    ...(request.hostedPrograms ?? []),
  ];
  const underSystem = (folder: string) => SYSTEM_FOLDERS.some((system) => isInside(system, folder));
  const program = outermost([...programPaths(files), ...nodePaths()]).filter(
    (folder) => !underSystem(folder),
  );

  const data = dataDirectory({ ...inherited, ...request.env });
  const state = stateFolder(data);
  const dataFolders = serverDataFolders(files, data);
  for (const folder of dataFolders) mkdirSync(folder, { recursive: true });
  const writableFolders = dataFolders.map((folder) => realpathSync(folder));

  const env = sandboxEnvironment({ inherited, own: request.env, home: SANDBOX_HOME });
  // The server finds its data at <data>/<server>/, the only part of <data> it is shown.
  if (dataFolders.length > 0) env.TOOLMESH_DATA_DIR = data;

  const visible = [...program, ...roots, ...writableFolders];
  const hiddenFolders = stateFolderPlaces([...systemBinds(request.network), ...visible], state);
  const seen = (folder: string) => visible.some((bound) => isInside(bound, folder));
  const cwd = seen(hostCwd) ? hostCwd : (roots[0] ?? SANDBOX_HOME);

  const args = bwrapArguments({
    network: request.network,
    disableUserns: bwrap.disableUserns,
    programPaths: program,
    roots,
    writableRoots: request.writableRoots,
    writableFolders,
    hiddenFolders,
    home: SANDBOX_HOME,
    readOnlyOutside: request.readOnlyOutsideRoots ?? false,
    cwd,
    unsetVariables: (request.ambientVariables ?? []).filter((name) => !(name in env)),
    command: commandInside(request.command, searchPath, hostCwd, underSystem),
    args: request.args,
  });
  return { command: bwrap.path, args, env };
}
