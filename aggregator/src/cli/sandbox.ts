import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { findBwrap, INSTALL_BWRAP } from '../sandbox/find-bwrap.js';
import { SandboxSetupError, sandboxedCommand } from '../sandbox/sandboxed-command.js';
import type { Command } from './command.js';

export const SANDBOX_USAGE = `toolmesh sandbox [--root DIR]... [--read-only] [--net] [--env NAME]... -- <command> [args...]

Runs <command> in a bubblewrap sandbox, as toolmesh runs a server whose config says "sandbox":
system folders read-only, the --root folders at their own paths (read-write unless --read-only),
everything else read-only (an empty /tmp and home included, so a write outside the roots fails
rather than vanishing with the sandbox), no network unless --net, its own PID namespace, no capabilities, and an
environment of PATH, TERM, TZ, the locale (LANG, LANGUAGE, LC_*) and TOOLMESH_DATA_DIR only;
--env NAME passes one more variable of yours.
stdin, stdout and stderr are the command's, so it can be an MCP stdio server in a client config;
its exit status is toolmesh's.

  toolmesh sandbox --root . -- toolmesh-fs --root .
`;

class SandboxUsageError extends Error {}

interface SandboxOptions {
  roots: string[];
  readOnly: boolean;
  network: boolean;
  passed: string[];
  command: string;
  args: string[];
}

/** Flags stop at `--`: everything after it is the command line, untouched. */
function parseSandboxArguments(argv: readonly string[]): SandboxOptions | 'help' {
  const separator = argv.indexOf('--');
  const flags = separator < 0 ? argv : argv.slice(0, separator);
  const commandLine = separator < 0 ? [] : argv.slice(separator + 1);
  const options = { roots: [] as string[], readOnly: false, network: false, passed: [] as string[] };
  for (let index = 0; index < flags.length; index++) {
    const flag = flags[index] as string;
    const value = () => {
      const next = flags[++index];
      if (next === undefined || next.startsWith('--')) throw new SandboxUsageError(`${flag} needs a value`);
      return next;
    };
    if (flag === '--help' || flag === '-h') return 'help';
    else if (flag === '--root') options.roots.push(value());
    else if (flag.startsWith('--root=')) options.roots.push(flag.slice('--root='.length));
    else if (flag === '--env') options.passed.push(value());
    else if (flag === '--read-only') options.readOnly = true;
    else if (flag === '--net') options.network = true;
    else throw new SandboxUsageError(`unknown flag ${flag}`);
  }
  const [command, ...args] = commandLine;
  if (!command)
    throw new SandboxUsageError('no command: put it after --, e.g. toolmesh sandbox -- node server.js');
  return { ...options, command, args };
}

/** `toolmesh sandbox …`: runs the command sandboxed and resolves to its exit status. */
export async function sandboxCommand(argv: readonly string[]): Promise<number> {
  let options: SandboxOptions | 'help';
  try {
    options = parseSandboxArguments(argv);
  } catch (error) {
    if (!(error instanceof SandboxUsageError)) throw error;
    process.stderr.write(`toolmesh sandbox: ${error.message}\n\n${SANDBOX_USAGE}`);
    return 2;
  }
  if (options === 'help') {
    process.stderr.write(SANDBOX_USAGE);
    return 0;
  }
  const bwrap = findBwrap();
  if (!bwrap.available) {
    process.stderr.write(
      `toolmesh sandbox: refusing to run unsandboxed: ${bwrap.reason}. ${INSTALL_BWRAP}\n`,
    );
    return 1;
  }
  const env: Record<string, string> = {};
  for (const name of options.passed) {
    const value = process.env[name];
    if (value === undefined) {
      process.stderr.write(`toolmesh sandbox: --env ${name}: that variable is not set\n`);
      return 2;
    }
    env[name] = value;
  }
  let sandboxed: ReturnType<typeof sandboxedCommand>;
  try {
    sandboxed = sandboxedCommand(
      {
        command: options.command,
        args: options.args,
        roots: options.roots,
        writableRoots: !options.readOnly,
        readOnlyOutsideRoots: true,
        network: options.network,
        env,
      },
      bwrap,
    );
  } catch (error) {
    if (!(error instanceof SandboxSetupError)) throw error;
    process.stderr.write(`toolmesh sandbox: ${error.message}\n`);
    return 2;
  }
  const child = spawn(sandboxed.command, sandboxed.args, { env: sandboxed.env, stdio: 'inherit' });
  // bwrap does not pass signals on; ending it ends the sandbox (--die-with-parent).
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, forward);
  return new Promise((resolve) => {
    child.once('error', (error) => {
      process.stderr.write(`toolmesh sandbox: could not start ${sandboxed.command}: ${error.message}\n`);
      resolve(1);
    });
    child.once('exit', (code, signal) => {
      for (const name of signals) process.off(name, forward);
      // A shell's convention: killed by signal N is status 128 + N.
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}

export const sandbox: Command = {
  run: sandboxCommand,
};
