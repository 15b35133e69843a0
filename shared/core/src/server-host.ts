import { pathToFileURL } from 'node:url';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCNotification } from '@modelcontextprotocol/sdk/types.js';
import {
  HOST_METHODS,
  type HostStartParams,
  hostMessageParams,
  hostNotice,
  hostServerParams,
  hostStartParams,
} from './host-protocol.js';
import { type ServerProgram, type StartedProgram, startServerProgram } from './serve.js';
import { StdioLineTransport } from './stdio-line-transport.js';

/** One hosted server's side of the host's link: its messages, wrapped with its id. */
class HostedLink implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(
    private readonly server: string,
    private readonly link: Transport,
  ) {}

  async start(): Promise<void> {}

  send(message: JSONRPCMessage): Promise<void> {
    return this.link.send(hostNotice(HOST_METHODS.message, { server: this.server, message }));
  }

  /** A handler that throws must not end the host's read loop, and so every other server. */
  deliver(message: JSONRPCMessage): void {
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  async close(): Promise<void> {
    this.onclose?.();
  }
}

interface Member {
  link: HostedLink;
  started?: StartedProgram;
  /** Set by a stop that came while the program was still starting. */
  stopAsked: boolean;
}

function isServerProgram(value: unknown): value is ServerProgram {
  const program = value as Partial<ServerProgram> | undefined;
  return typeof program?.name === 'string' && typeof program.setup === 'function';
}

/**
 * A process that runs several server programs, each a separate MCP connection with its own
 * flags, multiplexed over this process's stdio (see `HOST_METHODS`). It ends, and every server
 * with it, when its stdin ends or on SIGINT/SIGTERM; what it spawned is its spawner's to end.
 */
export async function runServerHost(link: Transport = new StdioLineTransport()): Promise<void> {
  const members = new Map<string, Member>();
  const notify = (method: string, params: Record<string, unknown>) =>
    void link.send(hostNotice(method, params)).catch(() => undefined);
  const output = (server: string, text: string) => notify(HOST_METHODS.output, { server, text });

  const end = async (server: string, member: Member) => {
    await member.started?.stop();
    if (members.get(server) !== member) return;
    members.delete(server);
    notify(HOST_METHODS.ended, { server });
  };

  const start = async ({ server, program: file, args }: HostStartParams) => {
    if (members.has(server)) {
      output(server, `server host: ${server} is already running here; stop it first\n`);
      return;
    }
    const member: Member = { link: new HostedLink(server, link), stopAsked: false };
    members.set(server, member);
    let program: unknown;
    try {
      program = ((await import(pathToFileURL(file).href)) as { program?: unknown }).program;
    } catch (error) {
      output(server, `server host: cannot load ${file}: ${(error as Error).message}\n`);
    }
    const started = isServerProgram(program)
      ? await startServerProgram(program, args, { write: (text) => output(server, text), link: member.link })
      : undefined;
    if (program !== undefined && !isServerProgram(program))
      output(server, `server host: ${file} exports no server program named "program"\n`);
    if (!started || 'exitCode' in started) {
      await end(server, member);
      return;
    }
    member.started = started;
    if (member.stopAsked) await end(server, member);
    else notify(HOST_METHODS.started, { server });
  };

  const stop = (server: string) => {
    const member = members.get(server);
    if (!member) return;
    if (member.started) void end(server, member);
    else member.stopAsked = true;
  };

  const handlers: Record<string, (params: unknown) => void> = {
    [HOST_METHODS.start]: (params) => void start(hostStartParams.parse(params)),
    [HOST_METHODS.stop]: (params) => stop(hostServerParams.parse(params).server),
    [HOST_METHODS.message]: (params) => {
      const { server, message } = hostMessageParams.parse(params);
      members.get(server)?.link.deliver(message);
    },
  };
  link.onmessage = (message) => {
    const notice = 'method' in message && !('id' in message) ? (message as JSONRPCNotification) : undefined;
    const handler = notice ? handlers[notice.method] : undefined;
    if (!notice || !handler) {
      process.stderr.write(
        `server host: ignored a message that is no host notification: ${JSON.stringify(message).slice(0, 200)}\n`,
      );
      return;
    }
    try {
      handler(notice.params);
    } catch (error) {
      process.stderr.write(`server host: ignored ${notice.method}: ${(error as Error).message}\n`);
    }
  };
  process.on('unhandledRejection', (reason) =>
    process.stderr.write(`server host: unhandled rejection: ${String(reason)}\n`),
  );

  let stopping = false;
  const stopAll = async () => {
    if (stopping) return;
    stopping = true;
    await Promise.all([...members].map(([server, member]) => end(server, member)));
    process.exit(0);
  };
  process.once('SIGINT', () => void stopAll());
  process.once('SIGTERM', () => void stopAll());
  process.stdin.once('end', () => void stopAll());
  process.stdin.once('close', () => void stopAll());
  await link.start();
}
