import { PassThrough } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import type { HostedMember, ServerHost } from './server-host.js';

/**
 * The client side of one server run in a shared server host: a connection of its own, as if
 * the server had been spawned alone, with its own arguments and its own stderr. It looks like a
 * stdio transport to the SDK (`stderr` and `pid`, the host's), as it is one underneath.
 */
export class HostedServerTransport implements Transport, HostedMember {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly stderr = new PassThrough();
  private id: string | undefined;
  private starting: { resolve: () => void; reject: (error: Error) => void } | undefined;
  private closed = false;

  constructor(
    private readonly host: ServerHost,
    readonly program: string,
    readonly args: readonly string[],
    private readonly onSandboxWarning: (warning: string | undefined) => void,
  ) {}

  get pid(): number | undefined {
    return this.host.pid;
  }

  /** Resolves once the server is set up and serving in the host, as a spawned one is once it runs. */
  async start(): Promise<void> {
    if (this.id !== undefined || this.closed) throw new Error('HostedServerTransport already started');
    const served = new Promise<void>((resolve, reject) => {
      this.starting = { resolve, reject };
    });
    // Awaited below; an end that comes first must not count as unhandled meanwhile.
    served.catch(() => undefined);
    try {
      this.id = await this.host.attach(this);
    } catch (error) {
      this.starting = undefined;
      throw error;
    }
    this.onSandboxWarning(this.host.sandboxWarning);
    await served;
  }

  started(): void {
    this.starting?.resolve();
    this.starting = undefined;
  }

  ended(why: string): void {
    if (this.closed) return;
    this.closed = true;
    // Said as the server's last stderr line, so the log and the restart's reason carry it.
    if (why !== 'stopped') this.stderr.write(`${why}\n`);
    this.starting?.reject(new Error(`the server ended before serving: ${why}`));
    this.starting = undefined;
    this.stderr.end();
    this.onclose?.();
  }

  receive(message: JSONRPCMessage): void {
    this.onmessage?.(message);
  }

  output(text: string): void {
    if (!this.closed) this.stderr.write(text);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.id === undefined || this.closed) return Promise.reject(new Error('Not connected'));
    return this.host.send(this.id, message);
  }

  async close(): Promise<void> {
    if (this.id === undefined) {
      this.ended('closed');
      return;
    }
    await this.host.detach(this.id);
  }
}
