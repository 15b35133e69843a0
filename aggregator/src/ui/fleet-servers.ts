import type { Logger } from '@toolmesh/core';
import type { Fleet } from '../fleet/fleet.js';
import type { ReplicaServers, ServerRow } from './servers-view.js';

/** How often a replica publishes its servers besides at every change of state: a publication lost to a Redis hiccup is mended. */
const PUBLISH_EVERY_MS = 5000;
/** A publication this old whose replica has no heartbeat is of a replica gone: the next reader removes it. */
const GONE_AFTER_MS = 30_000;

/** What a replica publishes: its servers, and when. */
interface Publication {
  at: number;
  servers: ServerRow[];
}

/**
 * The Servers page of a fleet: each replica runs its own downstream servers, so each publishes
 * their states in one Redis hash (`<state.redisPrefix>dashboard:servers`, a field per replica,
 * written at every change and every 5 s), and a page shows those of every replica whose
 * heartbeat is alive: a read costs two commands however many keys Redis holds.
 */
export class FleetServers {
  readonly #key: string;

  constructor(
    private readonly fleet: Pick<Fleet, 'redis' | 'lease' | 'draining'>,
    keyPrefix: string,
    private readonly rows: () => ServerRow[],
    private readonly log: Logger,
  ) {
    this.#key = `${keyPrefix}dashboard:servers`;
  }

  /** Publishes now and every PUBLISH_EVERY_MS; call `publish` too when a server's state changes. */
  start(): void {
    this.publish();
    setInterval(() => this.publish(), PUBLISH_EVERY_MS).unref();
  }

  publish(): void {
    const publication: Publication = { at: Date.now(), servers: this.rows() };
    void this.fleet.redis
      .hset(this.#key, this.fleet.lease.id, JSON.stringify(publication))
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
    const published = await this.fleet.redis.hgetall(this.#key);
    const others = Object.keys(published)
      .filter((id) => id !== self)
      .sort();
    const ids = [self, ...others];
    const beats = await this.fleet.redis.mget(ids.map((id) => this.fleet.lease.keyOf(id)));
    const beatOf = (index: number) =>
      beats[index] ? (JSON.parse(beats[index] as string) as { url: string; draining: boolean }) : undefined;
    const own = beatOf(0);
    const gone: string[] = [];
    const shown = others.flatMap((replica, index) => {
      const beat = beatOf(index + 1);
      const publication = JSON.parse(published[replica] as string) as Publication;
      // No heartbeat: the replica is gone (or not yet started), whatever it published last.
      if (!beat) {
        if (Date.now() - publication.at > GONE_AFTER_MS) gone.push(replica);
        return [];
      }
      return [{ replica, url: beat.url, self: false, draining: beat.draining, servers: publication.servers }];
    });
    if (gone.length > 0) await this.fleet.redis.hdel(this.#key, ...gone);
    return [
      {
        replica: self,
        ...(own && { url: own.url }),
        self: true,
        draining: this.fleet.draining,
        servers: this.rows(),
      },
      ...shown,
    ];
  }
}
