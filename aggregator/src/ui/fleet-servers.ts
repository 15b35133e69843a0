import type { Logger } from '@toolmesh/core';
import type { Fleet } from '../fleet/fleet.js';
import type { ServerRow } from './server-rows.js';

/** How often a replica publishes its servers, besides at every change of state. */
const PUBLISH_EVERY_MS = 2000;
/** How long a publication lives unless renewed: a replica that stopped drops off by itself. */
const PUBLICATION_TTL_MS = 10_000;

/** One replica's servers, as the Servers page shows them in a fleet. */
export interface ReplicaServers {
  replica: string;
  /** Where the other replicas reach it. */
  url?: string;
  /** The replica that answered the page. */
  self: boolean;
  draining: boolean;
  servers: ServerRow[];
}

/**
 * The Servers page of a fleet: each replica runs its own downstream servers, so each publishes
 * their states in Redis (`<fleet.keyPrefix>dashboard:servers:<replica>`, renewed every 2 s and
 * at every change), and a page shows those of every replica whose heartbeat is alive.
 */
export class FleetServers {
  readonly #prefix: string;

  constructor(
    private readonly fleet: Pick<Fleet, 'redis' | 'lease' | 'draining'>,
    keyPrefix: string,
    private readonly rows: () => ServerRow[],
    private readonly log: Logger,
  ) {
    this.#prefix = `${keyPrefix}dashboard:servers:`;
  }

  /** Publishes now and every PUBLISH_EVERY_MS; call `publish` too when a server's state changes. */
  start(): void {
    this.publish();
    setInterval(() => this.publish(), PUBLISH_EVERY_MS).unref();
  }

  publish(): void {
    const servers = JSON.stringify(this.rows());
    void this.fleet.redis
      .set(`${this.#prefix}${this.fleet.lease.id}`, servers, 'PX', PUBLICATION_TTL_MS)
      .catch((error: Error) => this.log.debug(`dashboard: servers not published in Redis: ${error.message}`));
  }

  /**
   * This replica's servers first (read now), then those every other live replica published;
   * with Redis out of reach, this replica's alone and what is wrong.
   */
  async view(): Promise<{ replicas: ReplicaServers[]; problem?: string }> {
    try {
      return { replicas: await this.#replicas() };
    } catch (error) {
      return {
        replicas: [
          { replica: this.fleet.lease.id, self: true, draining: this.fleet.draining, servers: this.rows() },
        ],
        problem: `The other replicas' servers cannot be read from Redis now (${(error as Error).message}): only this replica's are shown.`,
      };
    }
  }

  async #replicas(): Promise<ReplicaServers[]> {
    const self = this.fleet.lease.id;
    const others = (await this.#publishers()).filter((id) => id !== self).sort();
    const ids = [self, ...others];
    const [published, beats] = await Promise.all([
      others.length > 0 ? this.fleet.redis.mget(others.map((id) => `${this.#prefix}${id}`)) : [],
      this.fleet.redis.mget(ids.map((id) => this.fleet.lease.keyOf(id))),
    ]);
    const beatOf = (index: number) =>
      beats[index] ? (JSON.parse(beats[index] as string) as { url: string; draining: boolean }) : undefined;
    const own = beatOf(0);
    return [
      {
        replica: self,
        ...(own && { url: own.url }),
        self: true,
        draining: this.fleet.draining,
        servers: this.rows(),
      },
      ...others.flatMap((replica, index) => {
        const beat = beatOf(index + 1);
        const servers = published[index];
        // No heartbeat: the replica is gone, whatever it published last.
        if (!beat || !servers) return [];
        return [
          {
            replica,
            url: beat.url,
            self: false,
            draining: beat.draining,
            servers: JSON.parse(servers) as ServerRow[],
          },
        ];
      }),
    ];
  }

  async #publishers(): Promise<string[]> {
    const ids: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await this.fleet.redis.scan(cursor, 'MATCH', `${this.#prefix}*`, 'COUNT', 200);
      cursor = next;
      ids.push(...keys.map((key) => key.slice(this.#prefix.length)));
    } while (cursor !== '0');
    return ids;
  }
}
