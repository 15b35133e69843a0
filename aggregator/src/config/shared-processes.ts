import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { instanceOf } from '../workspaces/instances.js';
import { ConfigError } from './config-error.js';
import { isStdioServer, type ServerConfig, type StdioServerConfig } from './schema.js';

/** How a first-party server runs when it shares a process: which host, and what it runs there. */
export interface SharedProcess {
  /** The same for every server of one host: a digest of the settings they share. */
  group: string;
  /** This server's program module (its package's `./program` export). */
  program: string;
  /** Its arguments after its bin. */
  args: string[];
  /** Every program module of the group: the host's sandbox shows their packages and data folders. */
  programs: string[];
  /** Whether any server of the group writes to the roots: a shared sandbox is the union of its servers'. */
  writableRoots: boolean;
}

export type HostedServerConfig = StdioServerConfig & { sharedProcess: SharedProcess };

export function isHosted(config: ServerConfig): config is HostedServerConfig {
  return isStdioServer(config) && (config as Partial<HostedServerConfig>).sharedProcess !== undefined;
}

const NODE_COMMANDS = new Set(['node', 'nodejs']);

function manifestOf(folder: string): { name?: unknown; exports?: Record<string, unknown> } | undefined {
  try {
    return JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The program module of a first-party server run as `node <its bin> …` (its package's `./program`
 * export), or undefined for any other command line: only those can be hosted.
 */
export function hostedProgramOf(config: StdioServerConfig): string | undefined {
  const runsNode = config.command === process.execPath || NODE_COMMANDS.has(path.basename(config.command));
  const bin = config.args[0];
  if (!runsNode || bin === undefined || bin.startsWith('-')) return undefined;
  let folder: string;
  try {
    folder = path.dirname(realpathSync(path.resolve(config.cwd ?? process.cwd(), bin)));
  } catch {
    return undefined;
  }
  for (;;) {
    const manifest = manifestOf(folder);
    if (manifest) {
      const program = manifest.exports?.['./program'];
      const firstParty = typeof manifest.name === 'string' && manifest.name.startsWith('@toolmesh/server-');
      return firstParty && typeof program === 'string' ? path.join(folder, program) : undefined;
    }
    if (path.dirname(folder) === folder) return undefined;
    folder = path.dirname(folder);
  }
}

/**
 * What servers must have in common to share a process: the command that runs the host and what
 * its sandbox is given. Unsandboxed, roots and network decide nothing.
 */
function sharingKey(config: StdioServerConfig): string {
  const common = [config.command, config.env, config.cwd ?? null, config.sandbox];
  if (config.sandbox === 'off') return JSON.stringify(common);
  return JSON.stringify([...common, config.network, [...(config.roots ?? [])].sort()]);
}

/**
 * Marks the first-party servers that share a process (their `shareProcess`, else `byDefault`;
 * `byDefault` alone when `forced`, as `serve --processes` is) with the host they share: one for
 * each set of servers with the same sharing key. A server alone with its key runs in a process
 * of its own as before, as does any server toolmesh cannot host.
 */
export function withSharedProcesses(
  upstreams: ReadonlyMap<string, ServerConfig>,
  file: string,
  sharing: { byDefault: boolean; forced?: boolean },
): Map<string, ServerConfig> {
  const result = new Map<string, ServerConfig>();
  const groups = new Map<string, { name: string; config: StdioServerConfig; program: string }[]>();
  for (const [name, config] of upstreams) {
    if (!isStdioServer(config)) {
      result.set(name, config);
      continue;
    }
    // Computed here alone: a config file cannot set it.
    const { sharedProcess: _fromFile, ...own } = config as Partial<HostedServerConfig> & StdioServerConfig;
    result.set(name, own);
    const asked = sharing.forced ? undefined : own.shareProcess;
    // A host is ended as a process group, which Windows does not have: there each runs alone.
    if (!(asked ?? sharing.byDefault) || process.platform === 'win32') continue;
    const program = hostedProgramOf(own);
    if (!program) {
      if (asked)
        throw new ConfigError(
          `${file}: mcpServers.${instanceOf(name).server}.shareProcess: only first-party servers run as \`node <their bin>\` can share a process, and this one runs \`${own.command}\`; remove the key`,
        );
      continue;
    }
    const key = sharingKey(own);
    groups.set(key, [...(groups.get(key) ?? []), { name, config: own, program }]);
  }
  for (const [key, members] of groups) {
    if (members.length < 2) continue;
    const programs = [...new Set(members.map((member) => member.program))];
    const writableRoots = members.some((member) => member.config.writableRoots);
    const group = createHash('sha256').update(key).digest('hex').slice(0, 12);
    for (const { name, config, program } of members) {
      const sharedProcess: SharedProcess = {
        group,
        program,
        args: config.args.slice(1),
        programs,
        writableRoots,
      };
      result.set(name, { ...config, sharedProcess } as HostedServerConfig);
    }
  }
  return result;
}
