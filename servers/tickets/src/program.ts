/** The tickets server's program: what its bin runs, and what a server host runs beside others. */
import { packageVersion, type ServerProgram, UsageError } from '@toolmesh/core';
import { createTicketsServer, defaultTicketsFile, TICKETS_SERVER_NAME, TICKETS_SUMMARY } from './server.js';
import { SqliteTicketStore } from './store/sqlite-store.js';

export const program: ServerProgram = {
  name: TICKETS_SERVER_NAME,
  version: packageVersion(import.meta.url),
  summary: `${TICKETS_SUMMARY} State in --db FILE (default <data dir>/tickets/tickets.db). CLI: toolmesh-tickets export|import [FILE] --workspace ID.`,
  flags: {
    'max-delegation-depth': {
      type: 'string',
      value: 'N',
      description: 'how deep delegate_ticket may nest child tickets (default 5)',
    },
  },
  setup(flags, extra, log) {
    const depthText = (extra['max-delegation-depth'] as string | undefined) ?? '5';
    if (!/^\d+$/.test(depthText) || Number(depthText) < 1) {
      throw new UsageError(`--max-delegation-depth must be a whole number of at least 1, not "${depthText}"`);
    }
    const file = flags.db ?? defaultTicketsFile();
    const store = new SqliteTicketStore(file, { maxDelegationDepth: Number(depthText) });
    log.debug(`tickets in ${file}; workspaces ${flags.workspaces.join(', ')}`);
    const options = {
      store,
      workspaces: flags.workspaces,
      ...(flags.agent !== undefined && { identity: flags.agent }),
      log,
    };
    return { createServer: () => createTicketsServer(options), close: () => store.shutdown() };
  },
};
