import type { RelationKind } from './relations.js';
import type { Priority, Status } from './statuses.js';

export interface Assignee {
  agent: string | null;
  team: string | null;
}

export interface TicketSummary {
  id: string;
  title: string;
  status: Status;
  priority: Priority;
  labels: string[];
  assignee: Assignee;
  parent: string | null;
  updatedAt: string;
  version: number;
}

export interface Ticket extends TicketSummary {
  workspace_id: string;
  description: string;
  collaborators: string[];
  author: string;
  createdAt: string;
  output: string | null;
  error: string | null;
  prs: string[];
}

export interface Comment {
  author: string;
  body: string;
  createdAt: string;
}

export interface TicketDetail extends Ticket {
  comments: Comment[];
  relations: { kind: RelationKind; ticket: string }[];
}

export interface TicketEvent {
  ticket: string;
  kind: string;
  author: string;
  detail: Record<string, unknown>;
  createdAt: string;
}

export interface NewTicket {
  title: string;
  description?: string;
  status?: Status;
  priority?: Priority;
  labels?: string[];
  assignee?: Partial<Assignee>;
  parent?: string;
}

export interface TicketChanges {
  title?: string;
  description?: string;
  status?: Status;
  priority?: Priority;
  labels?: string[];
}

export type SortKey = 'priority' | 'created' | 'updated' | 'number';

export interface TicketFilter {
  status?: Status[];
  assignee?: string;
  label?: string;
  priority?: Priority[];
  parent?: string;
  text?: string;
  sort?: SortKey;
}

export interface RelationView {
  ticket: string;
  parent: TicketSummary | null;
  children: TicketSummary[];
  blockedBy: TicketSummary[];
  blocking: TicketSummary[];
  other: { kind: RelationKind; ticket: TicketSummary }[];
}

/** How far list counts its matches: an exact count of a large match would read every one of them. */
export const TOTAL_COUNTED_UP_TO = 1000;

/**
 * A window of listed tickets and how many match: exactly, or, with `totalAtLeast`, more than
 * `total`, where counting stopped — at TOTAL_COUNTED_UP_TO, or just past the window when it lies further on.
 */
export interface ListedTickets {
  total: number;
  totalAtLeast: boolean;
  tickets: TicketSummary[];
}

export interface SearchHit {
  ticket: TicketSummary;
  score: number;
}

/** Search hits, and a note when they are newest first rather than ranked (every word common). */
export interface SearchResult {
  hits: SearchHit[];
  note?: string;
}

/** Everything one workspace holds, as `export` writes it and `import` reads it back. */
export interface WorkspaceExport {
  format: 'toolmesh-tickets';
  version: 1;
  workspace_id: string;
  tickets: (Ticket & { comments: Comment[] })[];
  relations: { from: string; kind: string; to: string }[];
  events: TicketEvent[];
}
