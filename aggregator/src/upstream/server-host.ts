import { createRequire } from 'node:module';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import {
  HOST_METHODS,
  hostMessageParams,
  hostNotice,
  hostOutputParams,
  hostServerParams,
} from '@toolmesh/core';
import type { HostedServerConfig } from '../config/shared-processes.js';
import { ProcessGroupTransport } from './process-group-transport.js';
import { stdioLaunch } from './stdio-launch.js';

/** The server host's module, run with the same command as the servers it hosts. */
const HOST_PROGRAM = createRequire(import.meta.url).resolve('@toolmesh/core/host');

/** What the host tells one of its servers' connections. */
export interface HostedMember {
  readonly program: string;
  readonly args: readonly string[];
  started(): void;
  /** The server ended (stopped, failed to start, or its host died), with why when known. */
  ended(why: string): void;
  receive(message: JSONRPCMessage): void;
  output(text: string): void;
}

/**
 * One server host process and the servers it runs, each a connection of its own (see
 * `HostedServerTransport`). It is spawned with its first server, as a process group of its own
 * with the orphan watchdog watching, exactly like a server spawned alone; it ends once its last
 * server has, and when it dies every server in it ends with it, to be restarted with backoff.
 */
export class ServerHost {
  private process: ProcessGroupTransport | undefined;
  private spawning: Promise<ProcessGroupTransport> | undefined;
  private closing: Promise<void> = Promise.resolve();
  private readonly members = new Map<string, HostedMember>();
  private nextId = 1;
  /** Why the host runs without the sandbox its config prefers, when it does. */
  sandboxWarning: string | undefined;

  constructor(private readonly config: HostedServerConfig) {}

  get pid(): number | undefined {
    return this.process?.pid;
  }

  /** Starts `member` in the host, spawning the host first if it is not running; its id. */
  async attach(member: HostedMember): Promise<string> {
    let host = await this.running();
    // The last server left while this one waited: the host it waited for is ending, so spawn anew.
    while (this.process !== host) host = await this.running();
    const id = String(this.nextId++);
    this.members.set(id, member);
    await host.send(
      hostNotice(HOST_METHODS.start, { server: id, program: member.program, args: member.args }),
    );
    return id;
  }

  send(id: string, message: JSONRPCMessage): Promise<void> {
    const host = this.process;
    if (!host || !this.members.has(id)) return Promise.reject(new Error('Not connected'));
    return host.send(hostNotice(HOST_METHODS.message, { server: id, message }));
  }

  /** Ends one server; the host too when it was the last. */
  async detach(id: string): Promise<void> {
    const member = this.members.get(id);
    if (!member) return;
    this.members.delete(id);
    const host = this.process;
    if (this.members.size === 0) await this.endHost();
    else await host?.send(hostNotice(HOST_METHODS.stop, { server: id })).catch(() => undefined);
    member.ended('stopped');
  }

  private running(): Promise<ProcessGroupTransport> {
    this.spawning ??= this.spawn();
    return this.spawning;
  }

  private async spawn(): Promise<ProcessGroupTransport> {
    // A host still ending (its last server just left) is let go first, so two never overlap.
    await this.closing;
    const { sharedProcess } = this.config;
    const { sandboxWarning, ...launch } = stdioLaunch(
      { ...this.config, args: [HOST_PROGRAM], writableRoots: sharedProcess.writableRoots },
      sharedProcess.programs,
    );
    this.sandboxWarning = sandboxWarning;
    const host = new ProcessGroupTransport(launch);
    let pid: number | undefined;
    host.onmessage = (message) => this.dispatch(message);
    host.onclose = () => this.lost(host, pid);
    host.onerror = () => undefined;
    // What the host process itself writes (not one of its servers) concerns every server in it.
    host.stderr.on('data', (chunk: Buffer) => {
      for (const member of this.members.values()) member.output(chunk.toString('utf8'));
    });
    try {
      await host.start();
    } catch (error) {
      this.spawning = undefined;
      throw error;
    }
    pid = host.pid;
    this.process = host;
    return host;
  }

  private dispatch(message: JSONRPCMessage): void {
    if (!('method' in message)) return;
    const params = message.params;
    switch (message.method) {
      case HOST_METHODS.message: {
        const parsed = hostMessageParams.safeParse(params);
        if (parsed.success) this.members.get(parsed.data.server)?.receive(parsed.data.message);
        return;
      }
      case HOST_METHODS.output: {
        const parsed = hostOutputParams.safeParse(params);
        if (parsed.success) this.members.get(parsed.data.server)?.output(parsed.data.text);
        return;
      }
      case HOST_METHODS.started:
      case HOST_METHODS.ended: {
        const parsed = hostServerParams.safeParse(params);
        if (!parsed.success) return;
        const member = this.members.get(parsed.data.server);
        if (message.method === HOST_METHODS.started) {
          member?.started();
          return;
        }
        this.members.delete(parsed.data.server);
        member?.ended('it ended');
        if (this.members.size === 0) void this.endHost();
      }
    }
  }

  /** The host process is gone: every server in it ends, each to be restarted by its upstream. */
  private lost(host: ProcessGroupTransport, pid: number | undefined): void {
    if (this.process !== host) return;
    this.process = undefined;
    this.spawning = undefined;
    const members = [...this.members.values()];
    this.members.clear();
    const why = `the shared process it ran in (pid ${pid ?? '?'}) ended, with every server in it`;
    for (const member of members) member.ended(why);
  }

  private endHost(): Promise<void> {
    const host = this.process;
    this.process = undefined;
    this.spawning = undefined;
    if (!host) return this.closing;
    this.closing = host.close();
    return this.closing;
  }
}

/** One host per sharing group and sandbox, for the life of this process. */
const hosts = new Map<string, ServerHost>();

/** The host that runs `config`'s server, made on first use. */
export function serverHostFor(config: HostedServerConfig): ServerHost {
  const { group, programs, writableRoots } = config.sharedProcess;
  const key = JSON.stringify([group, programs, writableRoots]);
  let host = hosts.get(key);
  if (!host) {
    host = new ServerHost(config);
    hosts.set(key, host);
  }
  return host;
}
