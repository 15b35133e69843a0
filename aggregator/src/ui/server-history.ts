import { EventEmitter } from 'node:events';
import type { UpstreamSet } from '../upstream/upstream-set.js';

interface Observed {
  state: string;
  readySince?: number;
  restarts: number;
}

/**
 * What the dashboard shows beyond a server's present state: since when it is ready and how
 * often it restarted, as seen from the dashboard's start. Emits `changed` after any server's
 * change, for every page watching (the set itself is left one listener).
 */
export class ServerHistory extends EventEmitter {
  readonly #observed = new Map<string, Observed>();

  constructor(
    private readonly upstreams: UpstreamSet,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.setMaxListeners(0);
    this.#observe();
    upstreams.on('changed', () => {
      this.#observe();
      this.emit('changed');
    });
  }

  #observe(): void {
    for (const upstream of this.upstreams.list()) {
      const seen = this.#observed.get(upstream.name) ?? { state: 'starting', restarts: 0 };
      if (upstream.state !== seen.state) {
        if (upstream.state === 'restarting') seen.restarts++;
        if (upstream.state === 'ready') seen.readySince = this.now();
        else delete seen.readySince;
        seen.state = upstream.state;
      }
      this.#observed.set(upstream.name, seen);
    }
  }

  of(name: string): { readySince?: number; restarts: number } {
    const seen = this.#observed.get(name);
    return {
      restarts: seen?.restarts ?? 0,
      ...(seen?.readySince !== undefined && { readySince: seen.readySince }),
    };
  }
}
