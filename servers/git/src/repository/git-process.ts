import { ToolError } from '@toolmesh/core';
import { GitConstructError, GitPluginError } from 'simple-git';
import { configEnvironment, NEUTRAL_CONFIG, STABLE_OUTPUT_CONFIG } from './safe-config.js';
import { gitVersion, runThroughSimpleGit, type SimpleGitOutcome } from './simple-git-run.js';

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
  stdout: string;
  /** Standard output as bytes, for blobs; `stdout` is the same decoded as UTF-8. */
  readonly bytes: Buffer;
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
  versionCheck ??= gitVersion(gitEnvironment(undefined))
    .then((found) => {
      if (!found.installed) {
        throw new ToolError('git is not installed or not on PATH: install git 2.31 or later.', 'git_missing');
      }
      const [needMajor, needMinor] = MINIMUM_VERSION;
      if (found.major < needMajor || (found.major === needMajor && found.minor < needMinor)) {
        throw new ToolError(
          `git ${found.major}.${found.minor} is too old: toolmesh-git needs git ${needMajor}.${needMinor} or later, which can neutralise repository config. Upgrade git.`,
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

function explainFailure(command: GitCommand, outcome: SimpleGitOutcome): GitFailure {
  const { args } = command;
  const { stderr } = outcome;
  const what = `git ${args[0]}`;
  switch (outcome.stop) {
    case 'overflowed':
      return new GitFailure(
        args,
        stderr,
        `${what} produced more output than the server holds (${command.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES} bytes): narrow the request with paths or a smaller range.`,
      );
    case 'timedOut':
      return new GitFailure(
        args,
        stderr,
        `${what} did not finish within ${(command.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000} s: narrow the request.`,
      );
    case 'cancelled':
      return new GitFailure(args, stderr, `${what} was cancelled.`);
    default:
      return new GitFailure(
        args,
        stderr,
        `${what} failed (exit ${outcome.exitCode ?? 'signal'}): ${firstLines(stderr) || 'no message'}`,
      );
  }
}

function succeeded(
  command: GitCommand,
  outcome: SimpleGitOutcome,
): outcome is SimpleGitOutcome & { exitCode: number } {
  return (
    outcome.stop === undefined &&
    outcome.exitCode !== null &&
    (command.exitCodes ?? [0]).includes(outcome.exitCode)
  );
}

/**
 * A process argument cannot hold a NUL byte (the OS ends it there, and Node refuses to spawn):
 * caller text that does, a grep pattern or a stash note, is refused here with what to change.
 */
function refuseNulBytes(args: readonly string[]): void {
  const holding = args.find((arg) => arg.includes('\0'));
  if (holding === undefined) return;
  const shown = JSON.stringify(holding.length > 80 ? `${holding.slice(0, 80)}…` : holding);
  throw new ToolError(
    `${shown} holds a NUL byte, which git cannot take: remove it and call again.`,
    'nul_byte',
  );
}

/** A command through simple-git, after the version check; simple-git's own refusals become GitFailures. */
async function execute(
  environment: Record<string, string>,
  cwd: string,
  command: GitCommand,
  onStdout?: (chunk: Buffer) => boolean,
): Promise<SimpleGitOutcome> {
  refuseNulBytes(command.args);
  await requireGitVersion();
  try {
    return await runThroughSimpleGit({
      cwd,
      environment,
      args: ['--no-pager', ...command.args],
      ...(command.input !== undefined && { input: command.input }),
      ...(command.signal && { signal: command.signal }),
      timeoutMs: command.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxOutputBytes: command.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      ...(onStdout && { onStdout }),
    });
  } catch (error) {
    if (error instanceof GitConstructError) {
      throw new GitFailure(
        command.args,
        '',
        `The folder ${cwd} no longer exists: list the repositories again with git_repos.`,
      );
    }
    if (error instanceof GitPluginError) {
      // simple-git judges a setting by its name, never by the value that neutralises it, and this
      // server declares every name it sets: a refusal means a command it should never have built.
      throw new GitFailure(
        command.args,
        '',
        `simple-git refused git ${command.args[0]} (${error.plugin}): ${error.message}. This is a bug in toolmesh-git: please report it.`,
      );
    }
    throw error;
  }
}

/**
 * Runs git through simple-git, with an argument vector (never a shell) in a clean, neutralised
 * environment, and returns its output; an exit code outside `exitCodes` (default: 0) throws a
 * GitFailure.
 */
export async function runGit(
  environment: Record<string, string>,
  cwd: string,
  command: GitCommand,
): Promise<GitOutput> {
  const outcome = await execute(environment, cwd, command);
  if (!succeeded(command, outcome)) throw explainFailure(command, outcome);
  return outcome;
}

/**
 * Runs git and hands its stdout over line by line (without the line end); `visit` returns false
 * to stop early, which ends the process. For outputs (grep) that may be far larger than what
 * one answer shows.
 */
export async function streamGitLines(
  environment: Record<string, string>,
  cwd: string,
  command: GitCommand,
  visit: (line: string) => boolean,
): Promise<{ stoppedEarly: boolean }> {
  const lines = new LineSplitter(visit);
  const outcome = await execute(environment, cwd, command, (chunk) => lines.push(chunk));
  if (outcome.stop === 'enough' || !lines.flush()) return { stoppedEarly: true };
  if (!succeeded(command, outcome)) throw explainFailure(command, outcome);
  return { stoppedEarly: false };
}

/** Cuts output into lines ended by "\n" or "\r\n", each decoded once it is whole. */
class LineSplitter {
  private pending: Buffer[] = [];

  constructor(private readonly visit: (line: string) => boolean) {}

  /** False once `visit` wants no more. */
  push(chunk: Buffer): boolean {
    let start = 0;
    for (let end = chunk.indexOf(10); end >= 0; end = chunk.indexOf(10, start)) {
      const text = Buffer.concat([...this.pending, chunk.subarray(start, end)]).toString('utf8');
      this.pending = [];
      start = end + 1;
      if (!this.visit(text.endsWith('\r') ? text.slice(0, -1) : text)) return false;
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
    return true;
  }

  /** Hands over a last line that has no line end; false if `visit` wanted no more. */
  flush(): boolean {
    if (this.pending.length === 0) return true;
    const text = Buffer.concat(this.pending).toString('utf8');
    this.pending = [];
    return this.visit(text);
  }
}

/** A path as a pathspec that means exactly that path, where pathspec magic is on. */
export function literalPathspec(file: string): string {
  return `:(literal)${file}`;
}
