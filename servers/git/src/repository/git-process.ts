import { ToolError } from '@toolmesh/core';
import { execa } from 'execa';
import { configEnvironment, NEUTRAL_CONFIG, STABLE_OUTPUT_CONFIG } from './safe-config.js';

/** Variables a git child keeps from the server's environment; every other one (all GIT_*) is dropped. */
const INHERITED = ['PATH', 'HOME', 'XDG_CONFIG_HOME', 'TMPDIR'] as const;

const FIXED_ENVIRONMENT = {
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
  // Paths from callers are file names, never pathspec magic such as ':(top)' or globs.
  GIT_LITERAL_PATHSPECS: '1',
  // A read such as `git status` must not rewrite the index.
  GIT_OPTIONAL_LOCKS: '0',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  GIT_EDITOR: ':',
};

/** GIT_CONFIG_COUNT needs 2.31; --end-of-options, 2.24. */
const MINIMUM_VERSION = [2, 31] as const;
const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

export interface GitLocation {
  /** The work tree's top folder (real path); commands run there. */
  top: string;
  /** The repository's git folder (real path). */
  gitDir: string;
}

export interface GitCommand {
  /** The subcommand, then its options and operands. Caller text only ever follows `--`, a glued option or a verified hash. */
  args: readonly string[];
  input?: string;
  /**
   * Pathspec magic on, for commands that break under GIT_LITERAL_PATHSPECS (`git stash` cleans
   * untracked files through a pathspec of its own); caller paths must then be `literalPathspec`s.
   */
  pathspecMagic?: boolean;
  /** Settings for this command only, passed like the neutralising ones (never program-valued). */
  config?: readonly (readonly [string, string])[];
  /** Exit codes that are answers rather than failures, e.g. 1 from `git grep` (no match). */
  exitCodes?: readonly number[];
  maxOutputBytes?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface GitOutput {
  exitCode: number;
  /** Standard output as bytes, for blobs; `stdout` is the same decoded as UTF-8. */
  bytes: Buffer;
  readonly stdout: string;
  stderr: string;
}

/** A git command that failed; its message is git's own, which says what was wrong. */
export class GitFailure extends ToolError {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
    message: string,
  ) {
    super(message, 'git_failed');
  }
}

function firstLines(text: string, count = 6): string {
  const lines = text.trim().split('\n').filter(Boolean);
  return lines.slice(0, count).join(' ') + (lines.length > count ? ' …' : '');
}

/** The environment of every git child: a fixed allowlist, the neutralising config, the repository. */
export function gitEnvironment(
  location: GitLocation | undefined,
  overrides: Iterable<readonly [string, string]> = [],
  source: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = source[name];
    if (value !== undefined) environment[name] = value;
  }
  return {
    ...environment,
    ...FIXED_ENVIRONMENT,
    ...configEnvironment([...NEUTRAL_CONFIG, ...STABLE_OUTPUT_CONFIG, ...overrides]),
    // Explicit, so git neither searches upwards nor honours a core.worktree pointing elsewhere.
    ...(location && { GIT_DIR: location.gitDir, GIT_WORK_TREE: location.top }),
  };
}

let versionCheck: Promise<void> | undefined;

/** Refuses to run at all with a git too old to honour the neutralising config. */
function requireGitVersion(): Promise<void> {
  versionCheck ??= execa('git', ['version'], {
    env: gitEnvironment(undefined),
    extendEnv: false,
    reject: false,
  })
    .then((result) => {
      if (result.failed && result.exitCode === undefined) {
        throw new ToolError('git is not installed or not on PATH: install git 2.31 or later.', 'git_missing');
      }
      const found = /git version (\d+)\.(\d+)/.exec(String(result.stdout));
      const [major, minor] = [Number(found?.[1]), Number(found?.[2])];
      const [needMajor, needMinor] = MINIMUM_VERSION;
      if (!found || major < needMajor || (major === needMajor && minor < needMinor)) {
        throw new ToolError(
          `git ${found ? `${major}.${minor}` : '(unknown version)'} is too old: toolmesh-git needs git ${needMajor}.${needMinor} or later, which can neutralise repository config. Upgrade git.`,
          'git_too_old',
        );
      }
    })
    .catch((error: unknown) => {
      versionCheck = undefined;
      throw error;
    });
  return versionCheck;
}

interface Outcome {
  stderr?: unknown;
  exitCode?: number | undefined;
  isMaxBuffer: boolean;
  timedOut: boolean;
  isCanceled: boolean;
}

function explainFailure(command: GitCommand, result: Outcome): GitFailure {
  const args = command.args;
  const stderr =
    result.stderr instanceof Uint8Array
      ? Buffer.from(result.stderr).toString('utf8')
      : String(result.stderr ?? '');
  const what = `git ${args[0]}`;
  if (result.isMaxBuffer) {
    return new GitFailure(
      args,
      stderr,
      `${what} produced more output than the server holds (${command.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES} bytes): narrow the request with paths or a smaller range.`,
    );
  }
  if (result.timedOut) {
    return new GitFailure(
      args,
      stderr,
      `${what} did not finish within ${(command.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000} s: narrow the request.`,
    );
  }
  if (result.isCanceled) return new GitFailure(args, stderr, `${what} was cancelled.`);
  return new GitFailure(
    args,
    stderr,
    `${what} failed (exit ${result.exitCode ?? 'signal'}): ${firstLines(stderr) || 'no message'}`,
  );
}

/**
 * Runs git with an argument vector (never a shell) in a clean, neutralised environment and
 * returns its output; an exit code outside `exitCodes` (default: 0) throws a GitFailure.
 */
export async function runGit(
  environment: Record<string, string>,
  cwd: string,
  command: GitCommand,
): Promise<GitOutput> {
  await requireGitVersion();
  const result = await execa('git', ['--no-pager', ...command.args], {
    cwd,
    env: environment,
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
    encoding: 'buffer',
    ...(command.input !== undefined ? { input: command.input } : { stdin: 'ignore' }),
    maxBuffer: command.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    timeout: command.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(command.signal && { cancelSignal: command.signal }),
  });
  const exitCode = result.exitCode;
  const accepted = command.exitCodes ?? [0];
  if (
    result.isMaxBuffer ||
    result.timedOut ||
    result.isCanceled ||
    exitCode === undefined ||
    !accepted.includes(exitCode)
  ) {
    throw explainFailure(command, result);
  }
  const bytes = Buffer.from(result.stdout);
  return {
    exitCode,
    bytes,
    get stdout() {
      return bytes.toString('utf8');
    },
    stderr: Buffer.from(result.stderr).toString('utf8'),
  };
}

/**
 * Runs git and hands its stdout over line by line; `visit` returns false to stop early, which
 * ends the process. For outputs (grep) that may be far larger than what one answer shows.
 */
export async function streamGitLines(
  environment: Record<string, string>,
  cwd: string,
  command: GitCommand,
  visit: (line: string) => boolean,
): Promise<{ stoppedEarly: boolean }> {
  await requireGitVersion();
  const subprocess = execa('git', ['--no-pager', ...command.args], {
    cwd,
    env: environment,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    buffer: { stdout: false, stderr: true },
    timeout: command.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(command.signal && { cancelSignal: command.signal }),
  });
  let stoppedEarly = false;
  for await (const line of subprocess.iterable({ from: 'stdout' })) {
    if (!visit(String(line))) {
      stoppedEarly = true;
      subprocess.kill();
      break;
    }
  }
  const result = await subprocess;
  if (stoppedEarly) return { stoppedEarly };
  const accepted = command.exitCodes ?? [0];
  if (
    result.timedOut ||
    result.isCanceled ||
    result.exitCode === undefined ||
    !accepted.includes(result.exitCode)
  ) {
    throw explainFailure(command, result);
  }
  return { stoppedEarly };
}

/** A path as a pathspec that means exactly that path, where pathspec magic is on. */
export function literalPathspec(file: string): string {
  return `:(literal)${file}`;
}
