import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

export type Exposure = 'all' | 'discovery';

/** One connected client: its MCP server object and what it is doing now. */
export class FrontSession {
  lastActive = Date.now();
  private readonly activeCalls = new Map<string, number>();

  constructor(
    readonly server: Server,
    readonly exposure: Exposure,
  ) {}

  begin(upstream: string): void {
    this.lastActive = Date.now();
    this.activeCalls.set(upstream, (this.activeCalls.get(upstream) ?? 0) + 1);
  }

  end(upstream: string): void {
    const count = (this.activeCalls.get(upstream) ?? 1) - 1;
    if (count > 0) this.activeCalls.set(upstream, count);
    else this.activeCalls.delete(upstream);
  }

  isCalling(upstream: string): boolean {
    return this.activeCalls.has(upstream);
  }
}
