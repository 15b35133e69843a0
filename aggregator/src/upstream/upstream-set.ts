import { EventEmitter } from 'node:events';
import type { Logger } from '@toolmesh/core';
import type { ServerConfig } from '../config/schema.js';
import { Upstream, type UpstreamOptions } from './upstream.js';
import type { UpstreamCatalog } from './upstream-catalog.js';
import type { Relay } from './upstream-client.js';

/** All downstream servers, in config order, started together. Emits `changed` when any changes. */
export class UpstreamSet extends EventEmitter {
  private readonly byName = new Map<string, Upstream>();
  /** Once stopped, nothing starts again: a reload still under way adds no server. */
  private stopped = false;

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

  /**
   * Starts every server in parallel (once `after` settles, when given), without waiting for any:
   * each joins once it is ready (see settled). A server with a `cached` catalogue is listed from
   * it: with `dormant`, it is not started until its first call; otherwise it starts as the others
   * do, and lists its own once ready.
   */
  start(
    servers: ReadonlyMap<string, ServerConfig>,
    cached: ReadonlyMap<string, UpstreamCatalog> = new Map(),
    { dormant = true, after }: { dormant?: boolean; after?: Promise<unknown> } = {},
  ): void {
    for (const [name, config] of servers)
      this.add(name, config, { cached: cached.get(name), dormant, after });
  }

  /** Starts a server; it emits `changed` when it is ready, or when its first attempt fails. */
  add(
    name: string,
    config: ServerConfig,
    {
      cached,
      dormant = true,
      after,
    }: { cached?: UpstreamCatalog | undefined; dormant?: boolean; after?: Promise<unknown> | undefined } = {},
  ): void {
    if (this.stopped) return;
    const upstream = new Upstream(name, config, {
      ...this.options,
      log: this.log.child(name),
      relay: this.relay,
    });
    upstream.on('changed', () => this.emit('changed'));
    this.byName.set(name, upstream);
    if (cached && dormant) {
      upstream.rest(cached);
      return;
    }
    if (cached) upstream.listFromCache(cached);
    if (!after) void upstream.start();
    // Stopped meanwhile (toolmesh is ending): it is not started at all.
    else void after.then(() => (this.stopped || upstream.state === 'stopped' ? undefined : upstream.start()));
  }

  /** Starts every dormant server, and waits for their first attempts. */
  async wakeAll(): Promise<void> {
    await Promise.all(this.list().map((upstream) => upstream.wake()));
  }

  /**
   * Resolves once no server is on its first attempt to start (each is ready, or failed and
   * retrying), or after `withinMs`, whichever comes first.
   */
  async settled(withinMs = Number.POSITIVE_INFINITY): Promise<void> {
    const firstAttempts = Promise.all(
      this.list()
        .filter((upstream) => upstream.state === 'starting')
        .map((upstream) => upstream.attemptEnded()),
    );
    if (!Number.isFinite(withinMs)) {
      await firstAttempts;
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([firstAttempts, new Promise((resolve) => (timer = setTimeout(resolve, withinMs)))]);
    clearTimeout(timer);
  }

  async remove(name: string): Promise<void> {
    const upstream = this.byName.get(name);
    if (!upstream) return;
    this.byName.delete(name);
    await upstream.stop();
    this.emit('changed');
  }

  /**
   * Brings the running set to `servers`: starts the new, stops the removed, restarts those whose
   * config changed, and leaves the rest (and their in-flight calls) alone. It does not wait for
   * the started ones to connect, so a server slow to start holds no later reload.
   */
  async reconcile(
    servers: ReadonlyMap<string, ServerConfig>,
  ): Promise<{ added: string[]; removed: string[]; restarted: string[] }> {
    const added = [...servers.keys()].filter((name) => !this.byName.has(name));
    const removed = [...this.byName.keys()].filter((name) => !servers.has(name));
    const restarted = [...servers]
      .filter(
        ([name, config]) =>
          this.byName.has(name) && JSON.stringify(this.byName.get(name)?.config) !== JSON.stringify(config),
      )
      .map(([name]) => name);
    await Promise.all([...removed, ...restarted].map((name) => this.remove(name)));
    if (this.stopped) return { added: [], removed, restarted: [] };
    for (const name of [...added, ...restarted]) this.add(name, servers.get(name) as ServerConfig);
    // Keep config order, which decides resource ownership and listing order.
    const ordered = [...servers.keys()].map((name) => [name, this.byName.get(name) as Upstream] as const);
    this.byName.clear();
    for (const [name, upstream] of ordered) this.byName.set(name, upstream);
    return { added, removed, restarted };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.list().map((upstream) => upstream.stop()));
  }
}
