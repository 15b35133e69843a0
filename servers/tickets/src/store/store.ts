import type { RelationKind } from './relations.js';
import type {
  Assignee,
  ListedTickets,
  NewTicket,
  RelationView,
  SearchResult,
  Ticket,
  TicketChanges,
  TicketDetail,
  TicketEvent,
  TicketFilter,
  TicketSummary,
  WorkspaceExport,
} from './types.js';

/** Who acts and where: every store call is confined to one workspace and records its author. */
export interface Actor {
  workspace: string;
  identity: string;
}

/** The tickets engine. It knows nothing of MCP; errors it throws are ToolErrors a caller can act on. */
export interface TicketStore {
  create(actor: Actor, tickets: readonly NewTicket[], options?: { dryRun?: boolean }): Ticket[];
  get(workspace: string, ref: string): TicketDetail;
  /** The matching tickets in order: the window from `offset` (at most `limit`), and their count. */
  list(workspace: string, filter: TicketFilter, window?: { offset: number; limit: number }): ListedTickets;
  update(actor: Actor, ref: string, changes: TicketChanges, expectedVersion?: number): Ticket;
  assign(actor: Actor, ref: string, assignee: Partial<Assignee>): Ticket;
  reassign(actor: Actor, ref: string, assignee: Assignee): Ticket;
  addCollaborator(actor: Actor, ref: string, name: string): Ticket;
  comment(actor: Actor, ref: string, body: string): TicketDetail;
  close(actor: Actor, ref: string, output?: string): Ticket;
  fail(actor: Actor, ref: string, error: string): Ticket;
  delegate(actor: Actor, ref: string, child: NewTicket & { agent: string }): Ticket;
  linkPr(actor: Actor, ref: string, action: 'link' | 'unlink', pr: string): Ticket;
  relate(
    actor: Actor,
    ref: string,
    action: 'add' | 'remove',
    kind: RelationKind,
    otherRef: string,
  ): RelationView;
  relations(workspace: string, ref: string): RelationView;
  search(workspace: string, query: string, limit: number): SearchResult;
  history(workspace: string, ref: string): TicketEvent[];
  ready(workspace: string, assignee?: string): TicketSummary[];
  exportWorkspace(workspace: string): WorkspaceExport;
  /** Imports an export whole, or nothing: a bad item is refused naming it, its field and what was expected. */
  importWorkspace(actor: Actor, data: unknown): { imported: number };
  shutdown(): void;
}
