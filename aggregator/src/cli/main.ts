import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createLogger, dataDirectory, LOG_LEVELS, type LogLevel } from '@toolmesh/core';
import { connectInMemory, resultText } from '@toolmesh/core/testing';
import { Aggregator } from '../aggregator.js';
import { tokenStoreFile } from '../auth/token-store.js';
import { ConfigError, type LoadedConfig, loadConfigFile } from '../config/load.js';
import { openState } from '../state/open-state.js';
import { SEARCH_LIMIT_MAX } from '../tools/discovery.js';
import { unknownToolMessage } from '../tools/unknown-tool-message.js';
import { howToFix } from '../upstream/how-to-fix.js';
import { approvalsCommand } from './approvals.js';
import { auditCommand } from './audit.js';
import { callArguments } from './call-arguments.js';
import { DEFAULT_CONFIG_FILE, resolveConfig } from './resolve-config.js';
import { sandboxCommand } from './sandbox.js';
import { serveAggregator } from './serve.js';
import { tokenCommand } from './token.js';
import { UsageError, wholeNumberOption } from './usage-error.js';
import { watchConfig } from './watch-config.js';

const USAGE = `toolmesh — one MCP endpoint over many MCP servers

Usage:
  toolmesh serve [--config FILE] [--transport stdio|http] [--host H] [--port N] [--root DIR]
                 [--mode MODE]          stdio: the session's mode (HTTP: the path, /mcp/<mode>)
                 [--workspace ID]       stdio: bind the session to one workspace (HTTP: ?workspace=ID)
  toolmesh tools [--json] [--mode MODE] list the tools of the registry (as MODE sees them)
  toolmesh search "<query>" [--limit N] [--json] [--mode MODE]
  toolmesh call <tool> '<json arguments>' [--mode MODE]
  toolmesh doctor                       start each server and say which fail, and how to fix it
  toolmesh init [--force]               write a starter ${DEFAULT_CONFIG_FILE}
  toolmesh approvals [--watch] [--json] the calls waiting for a person's approval
  toolmesh approvals approve|deny <id> [--reason TEXT]
  toolmesh audit [--since 30m|2h|7d] [--tool GLOB] [--identity NAME] [--limit N] [--json]
                                        the calls that reached policy, newest first
  toolmesh token create --name NAME [--workspace ID]... [--modes M1,M2] [--approver]
  toolmesh token list [--json] | toolmesh token revoke NAME
                                        bearer tokens for the HTTP endpoint (shown once, kept as hashes)
  toolmesh sandbox [--root DIR]... [--read-only] [--net] [--env NAME]... -- <command> [args...]
                                        run any command (an MCP server) in a bubblewrap sandbox

Modes: chat (everything), plan, review, orchestrate, and those the config defines.

Without --config, ./${DEFAULT_CONFIG_FILE} is used when it exists; otherwise every installed
first-party server (@toolmesh/server-*) runs, rooted at --root (default: this folder).
Logs go to stderr; with --transport stdio, stdout carries only MCP.
`;

const STARTER_CONFIG = {
  $schema: 'https://unpkg.com/@toolmesh/aggregator/toolmesh.schema.json',
  exposure: 'all',
  mcpServers: {
    fs: { command: 'npx', args: ['-y', '@toolmesh/server-fs', '--root', '.'] },
  },
};

function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

export async function main(argv: string[]): Promise<number> {
  // Commands with flags of their own parse them themselves.
  if (argv[0] === 'sandbox') return sandboxCommand(argv.slice(1));
  if (argv[0] === 'audit') {
    const state = openState({});
    try {
      return await auditCommand(argv.slice(1), {
        state,
        print,
        printError: (line) => process.stderr.write(`${line}\n`),
      });
    } finally {
      await state.close();
    }
  }
  if (argv[0] === 'token') {
    return tokenCommand(argv.slice(1), {
      storeFile: tokenStoreFile(dataDirectory()),
      config: resolveConfig,
      print,
    });
  }
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      config: { type: 'string' },
      transport: { type: 'string', default: 'stdio' },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '3000' },
      root: { type: 'string', default: '.' },
      'log-level': { type: 'string', default: 'info' },
      json: { type: 'boolean', default: false },
      limit: { type: 'string', default: '10' },
      force: { type: 'boolean', default: false },
      mode: { type: 'string' },
      workspace: { type: 'string' },
      watch: { type: 'boolean', default: false },
      reason: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const [command = 'serve', ...rest] = positionals;
  if (values.help || command === 'help') {
    process.stderr.write(USAGE);
    return 0;
  }
  const level = values['log-level'] as string;
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  // One-shot commands print results, not the servers' chatter.
  const log = createLogger({
    level: (command === 'serve' || command === 'doctor' ? level : 'error') as LogLevel,
  });

  if (command === 'init') {
    if (existsSync(DEFAULT_CONFIG_FILE) && !values.force) {
      throw new UsageError(`${DEFAULT_CONFIG_FILE} exists; pass --force to overwrite it`);
    }
    writeFileSync(DEFAULT_CONFIG_FILE, `${JSON.stringify(STARTER_CONFIG, null, 2)}\n`);
    process.stderr.write(`wrote ${DEFAULT_CONFIG_FILE}; run: toolmesh serve\n`);
    return 0;
  }

  if (command === 'approvals') {
    const state = openState({});
    const watching = new AbortController();
    process.once('SIGINT', () => watching.abort());
    process.once('SIGTERM', () => watching.abort());
    try {
      return await approvalsCommand(
        [
          ...rest,
          ...(values.watch ? ['--watch'] : []),
          ...(values.json ? ['--json'] : []),
          ...(values.reason !== undefined ? ['--reason', values.reason] : []),
        ],
        { state, print, signal: watching.signal },
      );
    } finally {
      await state.close();
    }
  }

  const loaded = resolveConfig({
    ...(values.config && { config: values.config }),
    root: values.root as string,
  });
  if (!['serve', 'tools', 'search', 'call', 'doctor'].includes(command)) {
    throw new UsageError(`unknown command "${command}"`);
  }
  if (command === 'serve') {
    if (rest.length > 0) throw new UsageError(`serve takes flags only, not "${rest.join(' ')}"`);
    const transport = values.transport;
    if (transport !== 'stdio' && transport !== 'http')
      throw new UsageError('--transport must be stdio or http');
    const port = wholeNumberOption('--port', values.port as string, { min: 0, max: 65535 });
    for (const warning of loaded.warnings) log.warning(warning);
    if (loaded.servers.size === 0) log.warning('no server configured or installed: the registry is empty');
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
    const access =
      transport === 'http' ? await httpAccess(loaded, values.host as string, () => started) : undefined;
    const aggregator = await Aggregator.start({
      config: loaded.config,
      servers: loaded.servers,
      workspaces: loaded.workspaces,
      state: openState({}),
      log,
    });
    started = aggregator;
    checkMode(aggregator, values.mode);
    checkWorkspace(aggregator, values.workspace);
    await serveAggregator(aggregator, {
      transport,
      host: values.host as string,
      port,
      ...(values.mode && { mode: values.mode }),
      ...(values.workspace && { workspace: values.workspace }),
      ...(access && { access }),
      log,
    });
    if (loaded.file) {
      const file = loaded.file;
      process.off('SIGHUP', hangupWithoutReload);
      watchConfig(file, async (why) => {
        // A broken edit keeps the running config: the error says what to fix.
        let next: ReturnType<typeof loadConfigFile>;
        try {
          next = loadConfigFile(file, { defaultRoot: path.resolve(values.root as string) });
          if (access) await checkReloadedTokens(next);
        } catch (error) {
          log.error(`${why}, but the new config was not applied: ${(error as Error).message}`);
          return;
        }
        for (const warning of next.warnings) log.warning(warning);
        warnOfRestartOnlyChanges(aggregator.config, next.config, log);
        aggregator.reload(next).catch(() => undefined);
      });
    }
    return -1;
  }

  // Arguments are checked before any server starts, so a typo costs no start-up.
  const search = command === 'search' ? searchArguments(rest, values.limit as string) : undefined;
  const call = command === 'call' ? callArguments(rest) : undefined;
  const aggregator = await Aggregator.start({
    config: loaded.config,
    servers: loaded.servers,
    workspaces: loaded.workspaces,
    state: openState({}),
    log,
    upstream: { pingIntervalMs: 0 },
    // One answer from every server, not from those that were quick: each start is still bounded by its connect timeout.
    startupWaitMs: Number.POSITIVE_INFINITY,
  });
  try {
    if (command === 'doctor') return doctor(aggregator, loaded.warnings);
    checkMode(aggregator, values.mode);
    checkWorkspace(aggregator, values.workspace);
    const connected = await connectInMemory(
      aggregator.createSessionServer({
        exposure: 'all',
        ...(values.mode && { mode: values.mode }),
        ...(values.workspace && { workspace: values.workspace }),
      }),
    );
    try {
      if (command === 'tools') {
        const { tools } = await connected.client.listTools();
        if (values.json) print(JSON.stringify(tools, null, 2));
        else
          for (const tool of tools)
            print(`${tool.name.padEnd(40)} ${(tool.description ?? '').split('\n')[0]?.slice(0, 100)}`);
        return 0;
      }
      if (command === 'search') {
        const result = await connected.call('search_tool_bm25', search as { query: string; limit: number });
        print(values.json ? JSON.stringify(result.structuredContent, null, 2) : resultText(result));
        return result.isError ? 1 : 0;
      }
      const { tool, args } = call as ReturnType<typeof callArguments>;
      if (!aggregator.registry.tool(tool)) {
        process.stderr.write(
          `toolmesh: ${unknownToolMessage(aggregator, tool, 'toolmesh search "<words>"')}\n`,
        );
        return 2;
      }
      const result = (await connected.call('call_tool', { name: tool, arguments: args })) as CallToolResult;
      print(values.json ? JSON.stringify(result, null, 2) : resultText(result));
      return result.isError ? 1 : 0;
    } finally {
      await connected.close();
    }
  } finally {
    await aggregator.stop();
    await aggregator.state.close();
  }
}

function searchArguments(rest: readonly string[], limit: string): { query: string; limit: number } {
  const query = rest.join(' ');
  if (!query) throw new UsageError('search needs a query: toolmesh search "create issue"');
  return { query, limit: wholeNumberOption('--limit', limit, { min: 1, max: SEARCH_LIMIT_MAX }) };
}

function checkWorkspace(aggregator: Aggregator, workspace: string | undefined): void {
  if (workspace !== undefined && !aggregator.workspaces.get(workspace))
    throw new UsageError(
      `--workspace: no workspace named ${workspace}; the workspaces are ${aggregator.workspaces.workspaces.map((known) => known.id).join(', ')}`,
    );
}

function checkMode(aggregator: Aggregator, mode: string | undefined): void {
  if (mode !== undefined && !aggregator.policy.table.has(mode))
    throw new UsageError(
      `--mode: no mode named ${mode}; the modes are ${aggregator.policy.table.names().join(', ')}`,
    );
}

function doctor(aggregator: Aggregator, configWarnings: readonly string[]): number {
  for (const warning of configWarnings) print(`warning ${warning}`);
  let failed = 0;
  for (const upstream of aggregator.upstreams.list()) {
    if (upstream.state === 'ready') {
      print(`ok      ${upstream.name}: ${upstream.catalog.tools.length} tools`);
      if (upstream.sandboxWarning) print(`warning ${upstream.name}: ${upstream.sandboxWarning}`);
      continue;
    }
    failed++;
    print(`FAILED  ${upstream.name}: ${upstream.lastError ?? upstream.state}`);
    print(`        ${howToFix(upstream.config, upstream.lastError)}`);
  }
  for (const collision of aggregator.registry.collisions) {
    print(
      `renamed ${collision.renamed.server}/${collision.renamed.name} to ${collision.renamed.as}: ${collision.exposed} was taken by ${collision.kept.server}/${collision.kept.name}`,
    );
  }
  for (const conflict of aggregator.registry.uriConflicts) {
    print(`shadowed resource ${conflict.uri} of ${conflict.also}: ${conflict.owner} serves it`);
  }
  if (aggregator.upstreams.list().length === 0)
    print('no server configured: run toolmesh init, or install @toolmesh/server-* packages');
  return failed > 0 ? 1 : 0;
}

/** Settings the HTTP listener takes once, at start: a reload cannot change them, so say so. */
function warnOfRestartOnlyChanges(
  running: LoadedConfig['config'],
  next: LoadedConfig['config'],
  log: ReturnType<typeof createLogger>,
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
async function checkReloadedTokens(next: LoadedConfig): Promise<void> {
  const { checkTokenNames } = await import('../auth/http-access.js');
  const { TokenStore, tokenStoreFile } = await import('../auth/token-store.js');
  checkTokenNames(next.config.auth, new TokenStore(tokenStoreFile(dataDirectory())));
}

/** The HTTP endpoint's authentication; a setup toolmesh refuses is a config error (exit 2). */
async function httpAccess(loaded: LoadedConfig, host: string, running: () => Aggregator | undefined) {
  const { HttpAccessError, prepareHttpAccess } = await import('../auth/http-access.js');
  try {
    return await prepareHttpAccess({
      auth: loaded.config.auth,
      host,
      dataDir: dataDirectory(),
      // After a reload, the new file's tokens and rate limit apply.
      current: () => (running()?.config ?? loaded.config).auth,
    });
  } catch (error) {
    if (error instanceof HttpAccessError) throw new ConfigError(error.message);
    throw error;
  }
}

export async function run(argv: string[]): Promise<void> {
  try {
    const code = await main(argv);
    if (code >= 0) process.exit(code);
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof ConfigError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      process.stderr.write(
        `toolmesh: ${(error as Error).message}\n${error instanceof UsageError ? 'Run toolmesh --help for usage.\n' : ''}`,
      );
      process.exit(2);
    }
    process.stderr.write(`toolmesh: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  }
}
