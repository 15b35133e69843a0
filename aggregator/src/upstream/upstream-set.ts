import { EventEmitter } from 'node:events';
import type { Logger } from '@toolmesh/core';
import type { ServerConfig } from '../config/schema.js';
import { type Relay, Upstream, type UpstreamOptions } from './upstream.js';

/** All downstream servers, in config order, started together. Emits `changed` when any changes. */
export class UpstreamSet extends EventEmitter {
  private readonly byName = new Map<string, Upstream>();

  constructor(
    private readonly log: Logger,
    private readonly relay: Relay,
    private readonly options: Omit<UpstreamOptions, 'log' | 'relay'> = {},
  ) {
    super();
  }

  list(): Upstream[] {
    return [...this.byName.values()];
  }

  get(name: string): Upstream | undefined {
    return this.byName.get(name);
  }

  /** Starts every server in parallel and resolves once each has connected or failed its first try. */
  async start(servers: ReadonlyMap<string, ServerConfig>): Promise<void> {
    await Promise.all([...servers].map(([name, config]) => this.add(name, config)));
  }

  async add(name: string, config: ServerConfig): Promise<void> {
    const upstream = new Upstream(name, config, {
      ...this.options,
      log: this.log.child(name),
      relay: this.relay,
    });
    upstream.on('changed', () => this.emit('changed'));
    this.byName.set(name, upstream);
    await upstream.start();
  }

  async remove(name: string): Promise<void> {
    const upstream = this.byName.get(name);
    if (!upstream) return;
    this.byName.delete(name);
    await upstream.stop();
    this.emit('changed');
  }

  async stop(): Promise<void> {
    await Promise.all(this.list().map((upstream) => upstream.stop()));
  }
}
