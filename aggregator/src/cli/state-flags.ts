import type { LoadedConfig } from '../config/load.js';
import { openState, type StateSettings } from '../state/open-state.js';
import type { AggregatorState } from '../state/state.js';
import { resolveConfig } from './resolve-config.js';

/** The flags of every command that opens the state: they override the config's `state` section. */
export const STATE_FLAGS = {
  redis: { type: 'string' },
  postgres: { type: 'string' },
} as const;

export interface StateFlags {
  redis?: string | undefined;
  postgres?: string | undefined;
}

/** Where the state lives: --redis / --postgres, else the config's `state`, else SQLite. */
export function stateSettingsOf(flags: StateFlags, loaded: Pick<LoadedConfig, 'config'>): StateSettings {
  const redis = flags.redis ?? loaded.config.state.redis;
  const postgres = flags.postgres ?? loaded.config.state.postgres;
  const { redisPrefix, auditCommit } = loaded.config.state;
  return {
    ...(redis && { redis }),
    ...(postgres && { postgres, ...(auditCommit && { auditCommit }) }),
    ...(redisPrefix && { redisKeyPrefix: redisPrefix }),
  };
}

const TAKEN = ['--redis', '--postgres', '--config'] as const;

/**
 * For a command that parses its own arguments: takes --redis, --postgres (and --config, unless
 * the command reads it too) out of them, and says where the state lives by them or the config.
 */
export function takeStateArgs(
  args: string[],
  { keepConfig = false } = {},
): { settings: StateSettings; rest: string[] } {
  const taken: Partial<Record<(typeof TAKEN)[number], string>> = {};
  const rest: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    const flag = TAKEN.find((name) => arg === name || arg.startsWith(`${name}=`));
    if (!flag) {
      rest.push(arg);
      continue;
    }
    // A flag without its value stays for the command's parser, which names what is missing.
    const value = arg === flag ? args[index + 1] : arg.slice(flag.length + 1);
    if (value === undefined) {
      rest.push(arg);
      continue;
    }
    if (arg === flag) index++;
    taken[flag] = value;
    if (flag === '--config' && keepConfig) rest.push('--config', value);
  }
  const loaded = resolveConfig({ ...(taken['--config'] && { config: taken['--config'] }), root: '.' });
  return {
    settings: stateSettingsOf({ redis: taken['--redis'], postgres: taken['--postgres'] }, loaded),
    rest,
  };
}

/** For audit and approvals: the state their --redis, --postgres and --config name, and the rest of their arguments. */
export async function openStateFromArgs(args: string[]): Promise<{ state: AggregatorState; rest: string[] }> {
  const { settings, rest } = takeStateArgs(args);
  return { state: await openState(settings), rest };
}
