import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './usage-error.js';

/** One `toolmesh <name>` command: how it runs on the arguments after its name. */
export interface Command {
  /** Resolves to the exit code, or -1 when the command keeps running (serve) and exits by itself later. */
  run(args: string[]): Promise<number>;
}

type FlagsConfig = NonNullable<ParseArgsConfig['options']>;
type ParsedFlags<T extends FlagsConfig> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: true }>
>;

/**
 * A command's own flags, strictly: a flag the command does not take is a usage error (exit 2)
 * naming the command, never silently accepted.
 */
export function parseFlags<T extends FlagsConfig>(
  command: string,
  args: string[],
  options: T,
): ParsedFlags<T> {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    if (!(error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw error;
    const flags = Object.keys(options).map((flag) => `--${flag}`);
    throw new UsageError(
      `${command}: ${(error as Error).message.split('. ')[0]}; it takes ${flags.length > 0 ? flags.join(', ') : 'no flags'}`,
    );
  }
}

/** A result line on stdout; logs and problems go to stderr. */
export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** For a command that takes flags only: a word left over is a usage error naming it. */
export function flagsOnly(command: string, positionals: readonly string[]): void {
  if (positionals.length > 0)
    throw new UsageError(`${command} takes flags only, not "${positionals.join(' ')}"`);
}
