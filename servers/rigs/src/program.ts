/** The rigs server's program: what its bin runs, and what a server host runs beside others. */
import { packageVersion, type ServerProgram, UsageError } from '@toolmesh/core';
import { RigsEngine } from './rigs/rigs-engine.js';
import { createRigsServer, defaultRigsDataDir, RIGS_SERVER_NAME, RIGS_SUMMARY } from './server.js';

function wholeNumber(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    throw new UsageError(`--${flag} must be a whole number of at least 1, not "${text}"`);
  }
  return Number(text);
}

function origin(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--allow-origin ${text} is not an origin: give one like http://127.0.0.1:8080`);
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol) || url.origin !== text.replace(/\/$/, '')) {
    throw new UsageError(
      `--allow-origin ${text} is not an origin: give scheme, host and port only, like http://127.0.0.1:8080`,
    );
  }
  return url.origin;
}

export const program: ServerProgram = {
  name: RIGS_SERVER_NAME,
  version: packageVersion(import.meta.url),
  summary: `${RIGS_SUMMARY} Rig folders live under <data dir>/rigs/run; --root DIR is where uploads may come from.`,
  flags: {
    chromium: {
      type: 'string',
      value: 'PATH',
      description: 'the Chromium binary (default: the first found)',
    },
    'allow-origin': {
      type: 'string',
      multiple: true,
      value: 'ORIGIN',
      description: 'an origin rigs may reach even on a private address (repeatable)',
    },
    'allow-private-network': {
      type: 'boolean',
      description: 'let rigs reach private, loopback and link-local addresses',
    },
    'max-rigs': {
      type: 'string',
      value: 'N',
      description: 'rigs per workspace; the least recently used closes first (default 3)',
    },
    'idle-seconds': {
      type: 'string',
      value: 'N',
      description: 'close a rig after this long unused (default 600)',
    },
  },
  async setup(flags, extra, log) {
    const rigs = new RigsEngine({
      dataDir: defaultRigsDataDir(),
      roots: flags.roots,
      ...(typeof extra.chromium === 'string' && { chromium: extra.chromium }),
      egress: {
        allowedOrigins: ((extra['allow-origin'] as string[] | undefined) ?? []).map(origin),
        allowPrivateNetwork: extra['allow-private-network'] === true,
      },
      maxRigsPerWorkspace: wholeNumber('max-rigs', extra['max-rigs'] as string | undefined, 3),
      idleMs: wholeNumber('idle-seconds', extra['idle-seconds'] as string | undefined, 600) * 1000,
      log,
    });
    await rigs.sweep();
    process.env.TMPDIR = rigs.serverTemp();
    log.debug(`rigs for workspaces ${flags.workspaces.join(', ')}`);
    const options = {
      rigs,
      workspaces: flags.workspaces,
      log,
      ...(flags.agent !== undefined && { identity: flags.agent }),
    };
    return { createServer: () => createRigsServer(options), close: () => rigs.shutdown() };
  },
};
