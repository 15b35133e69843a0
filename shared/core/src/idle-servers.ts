import type { Server, ServerContext } from '@modelcontextprotocol/server';

/** How many idle servers are kept per kind, and how many kinds, the least recently used going first. */
const IDLE_PER_KEY = 4;
const KEYS_KEPT = 256;

/** How each pooled server goes back to its pool. */
const backToPool = new WeakMap<Server, () => void>();

/**
 * The exchange `server` was taken for ended without the SDK connecting it (its request was
 * answered past the SDK): a pooled server is idle again, as when the SDK closes it.
 */
export function exchangeEnded(server: Server): void {
  backToPool.get(server)?.();
}

/**
 * Servers that answer 2026-07-28 requests one after another. The SDK connects a server to one
 * exchange at a time and disconnects it when its answer is out; building a server (and
 * registering its handlers) for every request costs more than a trivial call. So a server whose
 * exchange ended is kept here, under the key of what it was made for (an endpoint's mode,
 * workspace and caller), and the next request of that kind takes it. Two servers are never
 * handed the same request state: each is taken out while it serves.
 *
 * Only for servers whose handlers read what differs between requests from the request itself,
 * and that send their notifications through `whileServing`.
 */
export class IdleServers<S extends Server = Server> {
  readonly #idle = new Map<string, S[]>();

  /** A server for `key`: an idle one, or `make()`'s, which comes back here when its exchange ends. */
  take(key: string, make: () => S): S {
    const idle = this.#idle.get(key);
    const server = idle?.pop();
    if (server) return server;
    const made = make();
    const keep = () => this.#keep(key, made);
    backToPool.set(made, keep);
    const onclose = made.onclose;
    made.onclose = () => {
      onclose?.();
      keep();
    };
    return made;
  }

  #keep(key: string, server: S): void {
    const idle = this.#idle.get(key) ?? [];
    // Re-inserted, so the map stays ordered from least to most recently used.
    this.#idle.delete(key);
    if (idle.length < IDLE_PER_KEY) idle.push(server);
    this.#idle.set(key, idle);
    for (const oldest of this.#idle.keys()) {
      if (this.#idle.size <= KEYS_KEPT) break;
      this.#idle.delete(oldest);
    }
  }
}

/**
 * The request a handler answers, whose notifications (progress, log messages) reach its client
 * only while its exchange lasts. A server serving requests one after another is connected to
 * the next request's exchange by then, and the SDK sends a request's notifications through
 * whatever exchange the server has now: a late one (a call's progress after its client went
 * away) must not reach another request. Without reuse it was lost all the same.
 */
export function whileServing(server: Server, request: ServerContext['mcpReq']): ServerContext['mcpReq'] {
  const exchange = server.transport;
  return {
    ...request,
    notify: async (notification) => {
      if (server.transport === exchange) await request.notify(notification);
    },
  };
}
