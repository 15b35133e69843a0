import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Server } from '@modelcontextprotocol/server';
import { type FlagSpec, helpText, parseServerFlags, type ServerFlags, UsageError } from './flags.js';
import { activitySeen } from './heap-release.js';
import { createLogger, type Logger } from './logger.js';
import { requireOptionalPeers } from './optional-peers.js';
import { StdioLineTransport } from './stdio-line-transport.js';

/** What the HTTP front loads beyond core's own dependencies. */
const HTTP_PEERS = ['@modelcontextprotocol/sdk', 'express'];

export interface ServerSetup {
  /**
   * One MCP server per 2025 session, or per 2026-07-28 request over HTTP; they share the engine
   * built by `setup`.
   */
  createServer: () => Server;
  close?: () => void | Promise<void>;
}

export interface ServerProgram {
  /** The bin name, e.g. `toolmesh-fs`. */
  name: string;
  version: string;
  summary: string;
  flags?: Record<string, FlagSpec>;
  setup(
    flags: ServerFlags,
    extra: Record<string, string | boolean | string[] | undefined>,
    log: Logger,
  ): ServerSetup | Promise<ServerSetup>;
}

export interface RunningServer {
  url?: string;
  close(): Promise<void>;
}

/** How to point Claude Code, or any client with an mcpServers config, at a server listening on `url`. */
export function httpClientSnippets(name: string, url: string): string {
  return [
    '',
    `${name} is serving MCP at ${url}`,
    '',
    `Claude Code:   claude mcp add --transport http ${name} ${url}`,
    'Any client (mcpServers config):',
    JSON.stringify({ mcpServers: { [name]: { type: 'http', url } } }, null, 2),
    '',
  ].join('\n');
}

export async function serve(
  setup: ServerSetup,
  flags: ServerFlags,
  log: Logger,
  /** Over stdio, the link to serve on instead of this process's stdin and stdout (a server host's). */
  link?: Transport,
): Promise<RunningServer> {
  if (flags.transport === 'stdio') {
    // Loaded only for stdio, as the HTTP front is only for HTTP.
    const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
    // The SDK picks the era from the client's first message and serves both from one factory;
    // the line transport keeps toolmesh's answers to unreadable and over-long lines.
    const connection = serveStdio(() => setup.createServer(), {
      transport: link ?? new StdioLineTransport(),
      onerror: (error) => log.debug(`stdio: ${error.message}`),
    });
    return { close: () => connection.close() };
  }
  // Loaded only for HTTP: express and the HTTP transports are most of a stdio server's start-up,
  // and optional peers of core, so that an install for stdio goes without them.
  requireOptionalPeers(import.meta.url, HTTP_PEERS, 'serving over HTTP needs the v1 MCP SDK and express');
  const { startHttpFront } = await import('./http-front.js');
  const front = await startHttpFront({
    createServer: setup.createServer,
    modernEra: true,
    host: flags.host,
    port: flags.port,
    log,
    allowedOrigins: Array.isArray(flags.config?.allowedOrigins)
      ? flags.config.allowedOrigins.map(String)
      : [],
  });
  return { url: front.url, close: () => front.close() };
}

/** Where a program's output goes besides its MCP messages. */
export interface ProgramOutput {
  /** Error messages, help and log lines: this process's stderr, or a server host's link. */
  write(text: string): void;
  /** Over stdio, the link to serve on instead of stdin and stdout (see `serve`). */
  link?: Transport;
  /** Log this program's unhandled rejections: only where it has the process to itself. */
  ownsProcess?: boolean;
}

/** A program set up and serving, until `stop` (once, whoever asks first). */
export interface StartedProgram {
  flags: ServerFlags;
  log: Logger;
  url?: string;
  stop(): Promise<void>;
}

const STDERR_OUTPUT: ProgramOutput = { write: (text) => process.stderr.write(text), ownsProcess: true };

/**
 * Flags, setup and serving, without anything that belongs to a whole process (signals, exit),
 * so that a server host can run several programs side by side. `exitCode` when the program ended
 * at once: help or version printed (0), bad flags (2), a failed setup (1), the reason written.
 */
export async function startServerProgram(
  program: ServerProgram,
  argv: readonly string[],
  output: ProgramOutput = STDERR_OUTPUT,
): Promise<StartedProgram | { exitCode: number }> {
  let parsed: ReturnType<typeof parseServerFlags>;
  try {
    parsed = parseServerFlags(argv, program.flags);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.write(`${program.name}: ${error.message}\n`);
    return { exitCode: 2 };
  }
  if (parsed.help) {
    output.write(helpText(program.name, program.summary, program.flags));
    return { exitCode: 0 };
  }
  if (parsed.version) {
    output.write(`${program.version}\n`);
    return { exitCode: 0 };
  }
  const { flags } = parsed;
  if (output.link && flags.transport !== 'stdio') {
    output.write(`${program.name}: a hosted server serves over its host's link; leave out --transport\n`);
    return { exitCode: 2 };
  }
  const log = createLogger({
    level: flags.logLevel,
    scope: program.name,
    sink: (line) => output.write(`${line}\n`),
  });
  if (output.ownsProcess)
    process.on('unhandledRejection', (reason) =>
      log.error('unhandled rejection', { reason: String(reason) }),
    );

  let setup: ServerSetup | undefined;
  let running: RunningServer;
  try {
    setup = await program.setup(flags, parsed.extra, log);
    running = await serve(setup, flags, log, output.link);
  } catch (error) {
    output.write(`${program.name}: ${(error as Error).message}\n`);
    // What setup started (an index, a watcher) would otherwise keep the process alive.
    await setup?.close?.();
    return { exitCode: 1 };
  }
  const started = setup;
  // Serving: start-up is over, its heap is given back at the first pause (bins, see small-heap).
  activitySeen();
  let stopping: Promise<void> | undefined;
  const stopOnce = async () => {
    await running.close().catch(() => undefined);
    await started.close?.();
  };
  return { flags, log, ...(running.url && { url: running.url }), stop: () => (stopping ??= stopOnce()) };
}

/**
 * The whole life of a server bin: flags, setup, serving, and a clean exit on SIGINT, SIGTERM or
 * (over stdio) the client closing stdin — so no server outlives the client that started it.
 */
export async function runServerProgram(program: ServerProgram, argv = process.argv.slice(2)): Promise<void> {
  const started = await startServerProgram(program, argv);
  if ('exitCode' in started) {
    if (started.exitCode !== 0) process.exitCode = started.exitCode;
    return;
  }
  const { flags, log } = started;
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log.debug(`stopping: ${why}`);
    await started.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  if (flags.transport === 'stdio') {
    process.stdin.once('end', () => void stop('stdin closed'));
    process.stdin.once('close', () => void stop('stdin closed'));
  } else if (started.url) {
    process.stderr.write(`${httpClientSnippets(program.name, started.url)}\n`);
    // Last, so whoever waits for this line (a script, a test) has everything above it too.
    log.info(`listening on ${started.url}`);
  }
}
