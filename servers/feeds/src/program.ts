/** The feeds server's program: what its bin runs, and what a server host runs beside others. */
import { packageVersion, type ServerProgram } from '@toolmesh/core';
import { FeedFetcher } from './feeds/fetcher.js';
import { FeedReader } from './feeds/reader.js';
import { FeedStore } from './feeds/store.js';
import { createFeedsServer, defaultFeedsFile, FEEDS_SERVER_NAME, FEEDS_SUMMARY } from './server.js';

/** How often the schedule looks for due feeds; each feed still waits its own interval. */
const SCHEDULE = { everyMs: 60_000, firstMs: 5_000 };

export const program: ServerProgram = {
  name: FEEDS_SERVER_NAME,
  version: packageVersion(import.meta.url),
  summary: `${FEEDS_SUMMARY} State in --db FILE (default <data dir>/feeds/feeds.db).`,
  flags: {
    'allow-private-network': {
      type: 'boolean',
      description: 'fetch feeds from private, loopback and link-local addresses too (refused by default)',
    },
    'no-schedule': {
      type: 'boolean',
      description: 'no background refresh; feeds are fetched only by refresh_feeds and add_feed',
    },
  },
  setup(flags, extra, log) {
    const file = flags.db ?? defaultFeedsFile();
    const allowPrivateNetwork = extra['allow-private-network'] === true;
    const schedule = extra['no-schedule'] !== true;
    const reader = new FeedReader({
      store: new FeedStore(file),
      fetcher: new FeedFetcher({ allowPrivateNetwork }),
      log,
      ...(schedule && { schedule: SCHEDULE }),
    });
    log.debug(
      `feeds in ${file}; background refresh ${schedule ? 'on' : 'off'}; private network ${allowPrivateNetwork ? 'allowed' : 'refused'}`,
    );
    return { createServer: () => createFeedsServer({ reader, log }), close: () => reader.close() };
  },
};
