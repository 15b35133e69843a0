import {
  createLogger,
  createToolServer,
  type Logger,
  packageVersion,
  serverDataFile,
  type ToolServer,
} from '@toolmesh/core';
import type { TicketStore } from './store/store.js';
import { TICKET_TOOLS } from './tools/index.js';

export const TICKETS_SERVER_NAME = 'toolmesh-tickets';
export const TICKETS_SUMMARY = 'MCP tickets server over one SQLite file, scoped per workspace.';

export interface TicketsServerOptions {
  store: TicketStore;
  /** The workspace ids served (default ["default"]); a ticket of any other is "not found". */
  workspaces?: readonly string[];
  /** Who acts when a request carries no `toolmesh/agent` (the --agent flag). */
  identity?: string;
  log?: Logger;
}

/** Where the tickets live when --db does not say. */
export function defaultTicketsFile(env: NodeJS.ProcessEnv = process.env): string {
  return serverDataFile('tickets', 'tickets.db', env);
}

/** What docs/servers/tickets.md is generated from. */
export const toolReference = {
  name: '@toolmesh/server-tickets',
  summary: `${TICKETS_SUMMARY} Tickets are numbered T-1, T-2… per workspace and carry status, priority P0–P3, labels, an agent and/or team assignee, collaborators, a parent, comments, relations (with inverses kept and cycles refused), linked PRs and an event history. Every tool is workspace-scoped, and a ticket of another workspace is simply not found. Reads carry the action class read; changes ticketWrite, and creating, updating, assigning, reassigning, closing and relating require approval. Each change and its event commit in one transaction.`,
  tools: TICKET_TOOLS,
};

/** One MCP server (one client session) over a shared ticket store. */
export function createTicketsServer(options: TicketsServerOptions): ToolServer {
  const log = options.log ?? createLogger({ scope: TICKETS_SERVER_NAME });
  return createToolServer({
    name: TICKETS_SERVER_NAME,
    version: packageVersion(import.meta.url),
    title: 'toolmesh tickets',
    instructions:
      'Tickets for planning and tracking work. Find work with list_ready_tickets, list_tickets or search_tickets; read one with get_ticket (its version guards update_ticket through expected_version); hand parts off with delegate_ticket; finish with close_ticket or fail_ticket.',
    tools: TICKET_TOOLS,
    engine: options.store,
    log,
    scope: {
      workspaces: options.workspaces ?? ['default'],
      ...(options.identity !== undefined && { identity: options.identity }),
    },
  });
}

export { SqliteTicketStore } from './store/sqlite-store.js';
export type { TicketStore } from './store/store.js';
export { TICKET_TOOLS } from './tools/index.js';
