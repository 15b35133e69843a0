import { simpleGit } from 'simple-git';

/** Why a git process was ended before it finished by itself. */
export type Stop = 'cancelled' | 'timedOut' | 'overflowed' | 'enough';

export interface SimpleGitRun {
  /** Where git runs (the repository's top folder). */
  cwd: string;
  /** The whole environment of the child: simple-git's `env()` replaces the server's, nothing is inherited. */
  environment: Record<string, string>;
  /** Everything after `git`. */
  args: readonly string[];
  input?: string;
  signal?: AbortSignal;
  timeoutMs: number;
  /** Output (stdout and stderr together) past which git is stopped. */
  maxOutputBytes: number;
  /** Sees stdout as it arrives; returning false stops git, which is not a failure. */
  onStdout?: (chunk: Buffer) => boolean;
}

export interface SimpleGitOutcome {
  /** null when git was ended by a signal. */
  exitCode: number | null;
  stdout: string;
  readonly bytes: Buffer;
  stderr: string;
  stop: Stop | undefined;
}

/**
 * simple-git's input plugin writes nothing, and so leaves git's stdin open, for an empty string;
 * an empty Buffer is written and ends it. Every command gets at least that, so a git that reads
 * its standard input sees its end at once, as with `stdin: 'ignore'`.
 */
const NO_INPUT = Buffer.alloc(0);
const NO_OUTPUT = Buffer.alloc(0);

/**
 * simple-git's guards, all on (`strict` implies its recommended checks too), declaring exactly
 * what this environment sets: `allowConfig` the keys written through GIT_CONFIG_KEY_<n>, which
 * simple-git reads and checks, and `allowEnvironment` the names of the variables. Anything else,
 * a config key in the arguments or a variable this server did not set, is refused.
 */
function guards(environment: Record<string, string>) {
  return {
    strict: true,
    allowConfig: Object.entries(environment)
      .filter(([name]) => name.startsWith('GIT_CONFIG_KEY_'))
      .map(([, key]) => key),
    allowEnvironment: Object.keys(environment),
  };
}

/**
 * Runs one git command through simple-git. Each command gets an instance of its own, because what
 * differs per command (abort signal, standard input, the settings it may write) is configured per
 * instance:
 * - `guards` keeps every simple-git check on, declaring exactly what this server sets.
 * - `errors` sees every finished command with its exit code and output buffers and lets it
 *   resolve, so the caller decides which exit codes are answers (grep's 1: no match).
 * - `abort` ends git (SIGINT) when the caller cancels, on the timeout, past the output cap, or
 *   when `onStdout` has what it needs; `outputHandler` is where output is counted and streamed.
 */
export async function runThroughSimpleGit(run: SimpleGitRun): Promise<SimpleGitOutcome> {
  const controller = new AbortController();
  let stop: Stop | undefined;
  const end = (reason: Stop) => {
    stop ??= reason;
    controller.abort();
  };
  const cancel = () => end('cancelled');
  if (run.signal?.aborted) cancel();
  run.signal?.addEventListener('abort', cancel);
  const timer = setTimeout(() => end('timedOut'), run.timeoutMs);
  let produced = 0;
  const count = (chunk: Buffer) => {
    produced += chunk.length;
    if (produced > run.maxOutputBytes) end('overflowed');
  };
  let finished: { exitCode: number | null; stdOut: Buffer[]; stdErr: Buffer[] } | undefined;
  try {
    const git = simpleGit({
      baseDir: run.cwd,
      ...guards(run.environment),
      abort: controller.signal,
      input: () => (run.input === undefined ? NO_INPUT : Buffer.from(run.input)),
      errors: (_error, result) => {
        finished = result;
        return undefined;
      },
    })
      .env(run.environment)
      .outputHandler((_binary, stdout, stderr) => {
        stdout.on('data', (chunk: Buffer) => {
          count(chunk);
          if (run.onStdout && stop === undefined && !run.onStdout(chunk)) end('enough');
        });
        stderr.on('data', count);
        // simple-git waits 50 ms more after a process that wrote nothing at all (its completion
        // plugin, which cannot be told otherwise), in case output is late; once stdout has ended
        // none can come, so an empty chunk tells it so. Silent commands (`git add`, an empty
        // `stash list`, a failed `rev-parse --quiet`) would otherwise each take 50 ms longer.
        stdout.once('end', () => stdout.emit('data', NO_OUTPUT));
      });
    const stdout = await git.raw([...run.args]);
    const result = finished ?? { exitCode: null, stdOut: [], stdErr: [] };
    return {
      exitCode: result.exitCode,
      stdout,
      get bytes() {
        return Buffer.concat(result.stdOut);
      },
      stderr: Buffer.concat(result.stdErr).toString('utf8'),
      stop,
    };
  } finally {
    clearTimeout(timer);
    run.signal?.removeEventListener('abort', cancel);
  }
}

/** `git --version` through simple-git, in the same environment as every command. */
export function gitVersion(environment: Record<string, string>) {
  return simpleGit(guards(environment)).env(environment).version();
}
