import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { dataDirectory, isInside } from '@toolmesh/core';
import { bwrapArguments } from './bwrap-arguments.js';
import { nodeFolders, outermost, programFiles, programFolders, resolveCommand } from './program-folders.js';
import { sandboxEnvironment } from './sandbox-environment.js';
import { AGGREGATOR_DATA_SUBFOLDER, serverDataFolder } from './server-data-folder.js';
import { SYSTEM_FOLDERS } from './system-folders.js';

/** The home inside every sandbox: an empty tmpfs, gone when the sandbox ends. */
export const SANDBOX_HOME = '/home/sandbox';

export interface SandboxRequest {
  command: string;
  args: readonly string[];
  /** The folders the program works on; relative ones are relative to `cwd`. */
  roots: readonly string[];
  writableRoots: boolean;
  network: boolean;
  /** Variables the program is given by name (a server entry's `env`); they pass whatever they are. */
  env: Readonly<Record<string, string>>;
  /** Where the program starts (default: the current folder), if the sandbox can see it. */
  cwd?: string;
  /** Where allowlisted variables (PATH, LANG, …) come from; default: this process's environment. */
  inherited?: NodeJS.ProcessEnv;
  /** Variables the spawner will add to bwrap's environment on its own, to be removed inside. */
  ambientVariables?: readonly string[];
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

  const files = programFiles(request.command, request.args, { searchPath, cwd: hostCwd });
  const underSystem = (folder: string) => SYSTEM_FOLDERS.some((system) => isInside(system, folder));
  const program = outermost([...programFolders(files), ...nodeFolders()]).filter(
    (folder) => !underSystem(folder),
  );

  const data = dataDirectory({ ...inherited, ...request.env });
  const dataFolder = serverDataFolder(files, data);
  if (dataFolder) mkdirSync(dataFolder, { recursive: true });
  const writableFolders = dataFolder ? [realpathSync(dataFolder)] : [];

  const env = sandboxEnvironment({ inherited, own: request.env, home: SANDBOX_HOME });
  // The server finds its data at <data>/<server>/, the only part of <data> it is shown.
  if (dataFolder) env.TOOLMESH_DATA_DIR = data;

  const visible = [...program, ...roots, ...writableFolders];
  const seen = (folder: string) => visible.some((bound) => isInside(bound, folder));
  const aggregatorData = path.join(data, AGGREGATOR_DATA_SUBFOLDER);
  const hiddenFolders = existsSync(aggregatorData) && seen(aggregatorData) ? [aggregatorData] : [];
  const cwd = seen(hostCwd) ? hostCwd : (roots[0] ?? SANDBOX_HOME);

  const args = bwrapArguments({
    network: request.network,
    disableUserns: bwrap.disableUserns,
    programFolders: program,
    roots,
    writableRoots: request.writableRoots,
    writableFolders,
    hiddenFolders,
    home: SANDBOX_HOME,
    cwd,
    unsetVariables: (request.ambientVariables ?? []).filter((name) => !(name in env)),
    command: commandInside(request.command, searchPath, hostCwd, underSystem),
    args: request.args,
  });
  return { command: bwrap.path, args, env };
}
