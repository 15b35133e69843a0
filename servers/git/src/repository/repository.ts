import { type GitCommand, type GitLocation, gitEnvironment, runGit, streamGitLines } from './git-process.js';
import { overridesFor } from './safe-config.js';
import { SubmoduleOverrides } from './submodule-overrides.js';

/** One repository inside the roots, and the only way to run git in it. */
export class Repository implements GitLocation {
  private overrides: Promise<[string, string][]> | undefined;
  private readonly submodules: SubmoduleOverrides;

  constructor(
    /** Real path of the work tree's top folder. */
    readonly top: string,
    /** Real path of its git folder (`.git`, or where a `.git` file points). */
    readonly gitDir: string,
    /** Real path of the folder holding objects and refs (differs from gitDir in linked worktrees). */
    readonly commonDir: string,
    /** How the repository is named in answers: relative to the first root, else absolute. */
    readonly shown: string,
    private readonly source: NodeJS.ProcessEnv = process.env,
  ) {
    this.submodules = new SubmoduleOverrides(top, gitDir, (source) =>
      'text' in source
        ? this.configKeys(['--file', '-'], source.text)
        : this.configKeys(['--blob', source.blob]),
    );
  }

  /** The keys `git config <from> --list` finds, run without overrides (they are what it computes). */
  private async configKeys(from: readonly string[], input?: string): Promise<string[]> {
    const listed = await runGit(gitEnvironment(this, [], this.source), this.top, {
      args: ['config', ...from, '--list', '--null', '--name-only'],
      ...(input !== undefined && { input }),
    });
    return listed.stdout.split('\0').filter(Boolean);
  }

  /**
   * The environment of this repository's commands. The repository's config is listed first, so
   * the drivers it names (filters, merge drivers…) are neutralised by name as well.
   */
  private async commandEnvironment(command: GitCommand): Promise<Record<string, string>> {
    this.overrides ??= this.configKeys([]).then(overridesFor);
    const environment = gitEnvironment(
      this,
      [...(await this.overrides), ...(await this.submodules.overrides()), ...(command.config ?? [])],
      this.source,
    );
    return command.pathspecMagic ? { ...environment, GIT_LITERAL_PATHSPECS: '0' } : environment;
  }

  async git(command: GitCommand) {
    return runGit(await this.commandEnvironment(command), this.top, command);
  }

  /** Standard output of a command that must succeed. */
  async output(args: readonly string[], options: Omit<GitCommand, 'args'> = {}): Promise<string> {
    return (await this.git({ ...options, args })).stdout;
  }

  async lines(command: GitCommand, visit: (line: string) => boolean) {
    return streamGitLines(await this.commandEnvironment(command), this.top, command, visit);
  }
}
