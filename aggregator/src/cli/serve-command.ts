import path from 'node:path';
import { dataDirectory, type Logger } from '@toolmesh/core';
import { Aggregator } from '../aggregator.js';
import type { Authenticator } from '../auth/authenticator.js';
import { ConfigError, type LoadedConfig, loadConfigFile } from '../config/load.js';
import { openState, type StateSettings, stateNotice } from '../state/open-state.js';
import { CatalogueCache } from '../upstream/catalogue-cache.js';
import { type Command, flagsOnly, parseFlags } from './command.js';
import {
  checkSession,
  configOf,
  loggerFor,
  nothingServed,
  REGISTRY_FLAGS,
  SESSION_FLAGS,
  sessionOf,
} from './registry-flags.js';
import { serveAggregator } from './serve.js';
import { stateSettingsOf } from './state-flags.js';
import { UsageError, wholeNumberOption } from './usage-error.js';
import { watchConfig } from './watch-config.js';

export const serveCommand: Command = {
  async run(args) {
    const { values, positionals } = parseFlags('serve', args, {
      ...REGISTRY_FLAGS,
      ...SESSION_FLAGS,
      transport: { type: 'string', default: 'stdio' },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '3000' },
      processes: { type: 'string' },
    });
    flagsOnly('serve', positionals);
    const log = loggerFor(values, 'info');
    const { transport, host } = values;
    if (transport !== 'stdio' && transport !== 'http')
      throw new UsageError('--transport must be stdio or http');
    const port = wholeNumberOption('--port', values.port, { min: 0, max: 65535 });
    const loaded = configOf(values, sharedProcessesFlag(values.processes));
    for (const warning of loaded.warnings) log.warning(warning);
    const empty = nothingServed(loaded);
    if (empty) log.warning(empty);
    // SIGHUP's default action ends the process; it asks for a reload, so it never may.
    const hangupWithoutReload = () =>
      log.info(
        loaded.file
          ? 'SIGHUP before serving began: nothing reloaded; send it again once toolmesh is listening'
          : 'SIGHUP: no config file to reload; start toolmesh with --config FILE to reload on SIGHUP',
      );
    process.on('SIGHUP', hangupWithoutReload);
    // Who may call is settled before any server starts, so a refused start leaves nothing running.
    let started: Aggregator | undefined;
    const settings = stateSettingsOf(values, loaded);
    const notice = stateNotice(settings);
    if (notice) log.warning(notice);
    const access = transport === 'http' ? await httpAccess(loaded, host, settings, () => started) : undefined;
    const state = await openState(settings);
    // Served at once: servers join as they get ready (see Aggregator.started), and are listed
    // from the catalogue cache meanwhile (Aggregator.listed).
    const aggregator = Aggregator.launch({
      config: loaded.config,
      servers: loaded.servers,
      workspaces: loaded.workspaces,
      state,
      log,
      catalogueCache: CatalogueCache.inDataDirectory(dataDirectory()),
      listFromCache: true,
      ...(transport === 'stdio' && { startServersAfterFirstList: { outputDrained: stdoutDrained } }),
    });
    started = aggregator;
    checkSession(aggregator, values);
    await serveAggregator(aggregator, {
      transport,
      host,
      port,
      ...sessionOf(values),
      ...(access && { access }),
      ...fleetRedis(settings, transport),
      log,
    });
    if (loaded.file) {
      process.off('SIGHUP', hangupWithoutReload);
      reloadOnChange(aggregator, loaded.file, path.resolve(values.root), access?.authenticator, log);
    }
    return -1;
  },
};

/**
 * Resolves once what was written to stdout before it has been flushed (the client has read all but
 * what its pipe holds): writes go out in order, so an empty one's callback comes after theirs.
 */
function stdoutDrained(): Promise<void> {
  return new Promise((resolve) => process.stdout.write('', () => resolve()));
}

/** The fleet's Redis: only HTTP replicas form a fleet; a stdio session has one client. */
function fleetRedis({ redis, redisKeyPrefix }: StateSettings, transport: 'stdio' | 'http') {
  return transport === 'http' && redis !== undefined
    ? { redis, ...(redisKeyPrefix && { redisKeyPrefix }) }
    : {};
}

/** Applies each edit of the config file (and SIGHUP); a broken edit keeps the running config, and the log says what to fix. */
function reloadOnChange(
  aggregator: Aggregator,
  file: string,
  defaultRoot: string,
  authenticator: Authenticator | undefined,
  log: Logger,
): void {
  watchConfig(file, async (why) => {
    let next: LoadedConfig;
    try {
      next = loadConfigFile(file, { defaultRoot });
      if (authenticator) await checkReloadedTokens(next, authenticator);
    } catch (error) {
      log.error(`${why}, but the new config was not applied: ${(error as Error).message}`);
      return;
    }
    for (const warning of next.warnings) log.warning(warning);
    warnOfRestartOnlyChanges(aggregator.config, next.config, log);
    aggregator.reload(next).catch(() => undefined);
  });
}

/** Settings the HTTP listener takes once, at start: a reload cannot change them, so say so. */
function warnOfRestartOnlyChanges(
  running: LoadedConfig['config'],
  next: LoadedConfig['config'],
  log: Logger,
): void {
  const changed = [
    running.auth.required !== next.auth.required && 'auth.required',
    running.http.maxBodyBytes !== next.http.maxBodyBytes && 'http.maxBodyBytes',
    JSON.stringify(running.http.allowedOrigins) !== JSON.stringify(next.http.allowedOrigins) &&
      'http.allowedOrigins',
  ].filter((key): key is string => typeof key === 'string');
  if (changed.length > 0)
    log.warning(
      `${changed.join(', ')} changed: restart toolmesh to apply; the running listener keeps the old values`,
    );
}

/** A reload's tokens get the start's check: a name the token store also holds is refused. */
async function checkReloadedTokens(next: LoadedConfig, authenticator: Authenticator): Promise<void> {
  const { checkTokenNames } = await import('../auth/http-access.js');
  checkTokenNames(next.config.auth, authenticator.store);
}

/** The HTTP endpoint's authentication; a setup toolmesh refuses is a config error (exit 2). */
async function httpAccess(
  loaded: LoadedConfig,
  host: string,
  { redis, redisKeyPrefix }: StateSettings,
  running: () => Aggregator | undefined,
) {
  const { HttpAccessError, prepareHttpAccess } = await import('../auth/http-access.js');
  try {
    return await prepareHttpAccess({
      auth: loaded.config.auth,
      host,
      dataDir: dataDirectory(),
      ...(redis && { redis }),
      ...(redisKeyPrefix && { redisKeyPrefix }),
      // After a reload, the new file's tokens and rate limit apply.
      current: () => (running()?.config ?? loaded.config).auth,
    });
  } catch (error) {
    if (error instanceof HttpAccessError) throw new ConfigError(error.message);
    throw error;
  }
}

/** `--processes shared|separate`: first-party servers in shared processes, or a process each. */
function sharedProcessesFlag(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'shared' || value === 'separate') return value === 'shared';
  throw new UsageError(`--processes must be shared or separate, not "${value}"`);
}
