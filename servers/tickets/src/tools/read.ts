import { budgetFields, cursorArg, maxTokensArg, requestedPage, requestedWindowPage } from '@toolmesh/core';
import { z } from 'zod';
import { TOTAL_COUNTED_UP_TO } from '../store/types.js';
import {
  commentSchema,
  defineTool,
  describeTicket,
  line,
  priority,
  priorityArg,
  READ_ONLY,
  relationViewSchema,
  status,
  statusArg,
  summarySchema,
  ticketArg,
  ticketSchema,
} from './define.js';

const more = (out: { truncated: boolean; nextCursor?: string | undefined }) =>
  out.truncated ? [`… more: call again with cursor ${out.nextCursor}`] : [];

export const getTicket = defineTool({
  name: 'get_ticket',
  title: 'Read a ticket',
  description: 'One ticket in full: fields, version, comments, relations and linked PRs.',
  capability: 'read',
  input: z.object({ ticket: ticketArg() }),
  output: ticketSchema.extend({
    comments: z.array(commentSchema),
    relations: z.array(z.object({ kind: z.string(), ticket: z.string() })),
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  workspaceScoped: true,
  render: (t) =>
    [
      describeTicket(t),
      ...t.relations.map((r) => `${r.kind} ${r.ticket}`),
      ...t.comments.map((c) => `— ${c.author} (${c.createdAt}): ${c.body}`),
    ].join('\n'),
  async handle(args, { engine, workspace }) {
    return engine.get(workspace, args.ticket);
  },
});

export const listTickets = defineTool({
  name: 'list_tickets',
  title: 'List tickets',
  description: `Tickets of the workspace, filtered by status, assignee (agent or team), label, priority, parent and text (words that must all appear in the title or description), sorted by priority (default), created, updated or number. total counts the matches up to ${TOTAL_COUNTED_UP_TO}: when more match, totalAtLeast is true. Budgeted: continue with nextCursor.`,
  capability: 'read',
  input: z.object({
    status: z.array(statusArg).max(7).optional().describe('Any of these statuses (aliases accepted).'),
    assignee: z.string().min(1).optional().describe('An agent or team name.'),
    label: z.string().min(1).optional(),
    priority: z.array(priorityArg).max(4).optional(),
    parent: ticketArg('Only children of this ticket').optional(),
    text: z
      .string()
      .max(200)
      .optional()
      .describe('Words that must all appear (in any form) in the title or description.'),
    sort: z.enum(['priority', 'created', 'updated', 'number']).default('priority'),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    total: z
      .number()
      .int()
      .describe(
        `How many tickets match, counted up to ${TOTAL_COUNTED_UP_TO} (or just past this page when it lies further on).`,
      ),
    totalAtLeast: z.boolean().describe('True when more than total match: counting stopped there.'),
    tickets: z.array(summarySchema),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  workspaceScoped: true,
  render: (out) =>
    [
      `${out.totalAtLeast ? 'at least ' : ''}${out.total} ticket(s)`,
      ...out.tickets.map(line),
      ...more(out),
    ].join('\n'),
  async handle(args, { engine, workspace }) {
    // A summary is well over 100 bytes, so the window holds more than any budget lets through.
    let totalAtLeast = false;
    const { items, ...page } = requestedWindowPage(args, 100, (window) => {
      const listed = engine.list(
        workspace,
        {
          ...(args.status && { status: args.status.map(status) }),
          ...(args.priority && { priority: args.priority.map(priority) }),
          ...(args.assignee !== undefined && { assignee: args.assignee }),
          ...(args.label !== undefined && { label: args.label }),
          ...(args.parent !== undefined && { parent: args.parent }),
          ...(args.text !== undefined && { text: args.text }),
          sort: args.sort,
        },
        window,
      );
      totalAtLeast = listed.totalAtLeast;
      return { total: listed.total, items: listed.tickets };
    });
    return { tickets: items, totalAtLeast, ...page };
  },
});

export const searchTickets = defineTool({
  name: 'search_tickets',
  title: 'Search tickets',
  description:
    'Full-text search (FTS5, BM25 ranking) over titles, descriptions and comments of the workspace; every word must match, in any of its forms (stemmed: leak finds leaks and leaking). Best first; when every word is in half the tickets or more (BM25 weighs none of them), the newest matches first, said in note.',
  capability: 'read',
  input: z.object({
    query: z.string().min(1).max(500).describe('Words to find.'),
    limit: z.number().int().min(1).max(200).default(50),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    hits: z.array(z.object({ ticket: summarySchema, score: z.number() })),
    note: z.string().optional().describe('Set when the hits are newest first rather than ranked, and why.'),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  workspaceScoped: true,
  render: (out) =>
    [
      out.hits.length ? '' : 'No match.',
      out.note ?? '',
      ...out.hits.map((h) => `${line(h.ticket)} (score ${h.score.toFixed(2)})`),
      ...more(out),
    ]
      .filter(Boolean)
      .join('\n'),
  async handle(args, { engine, workspace }) {
    const { hits, note } = engine.search(workspace, args.query, args.limit);
    const { items, ...budget } = requestedPage(hits, args);
    return { hits: items, ...(note !== undefined && { note }), ...budget };
  },
});

export const ticketHistory = defineTool({
  name: 'ticket_history',
  title: 'Ticket history',
  description: 'Every event of one ticket, oldest first: who changed what and when.',
  capability: 'read',
  input: z.object({ ticket: ticketArg(), maxTokens: maxTokensArg, cursor: cursorArg }),
  output: z.object({
    events: z.array(
      z.object({
        ticket: z.string(),
        kind: z.string(),
        author: z.string(),
        detail: z.record(z.string(), z.unknown()),
        createdAt: z.string(),
      }),
    ),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  workspaceScoped: true,
  render: (out) =>
    [
      ...out.events.map((e) => `${e.createdAt} ${e.author} ${e.kind} ${JSON.stringify(e.detail)}`),
      ...more(out),
    ].join('\n'),
  async handle(args, { engine, workspace }) {
    const { items, ...budget } = requestedPage(engine.history(workspace, args.ticket), args);
    return { events: items, ...budget };
  },
});

export const listReadyTickets = defineTool({
  name: 'list_ready_tickets',
  title: 'Ready tickets',
  description:
    'Open tickets (not done, failed or cancelled) with no unresolved blocker — a blocker resolves when done or cancelled — most urgent first. Optionally only those of one agent or team.',
  capability: 'read',
  input: z.object({
    assignee: z.string().min(1).optional().describe('An agent or team name.'),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({ tickets: z.array(summarySchema), ...budgetFields }),
  annotations: READ_ONLY,
  actions: ['read'],
  workspaceScoped: true,
  render: (out) =>
    [out.tickets.length ? '' : 'Nothing ready.', ...out.tickets.map(line), ...more(out)]
      .filter(Boolean)
      .join('\n'),
  async handle(args, { engine, workspace }) {
    const { items, ...budget } = requestedPage(engine.ready(workspace, args.assignee), args);
    return { tickets: items, ...budget };
  },
});

export const listTicketRelations = defineTool({
  name: 'list_ticket_relations',
  title: 'Ticket relations',
  description:
    'The parent, children, the tickets blocking it and those it blocks, and its other relations (related_to, duplicate_of, duplicated_by, discovered_from, led_to).',
  capability: 'read',
  input: z.object({ ticket: ticketArg() }),
  output: relationViewSchema,
  annotations: READ_ONLY,
  actions: ['read'],
  workspaceScoped: true,
  render: renderRelations,
  async handle(args, { engine, workspace }) {
    return engine.relations(workspace, args.ticket);
  },
});

export function renderRelations(view: z.infer<typeof relationViewSchema>): string {
  return [
    view.ticket,
    view.parent ? `parent: ${line(view.parent)}` : 'no parent',
    ...view.children.map((c) => `child: ${line(c)}`),
    ...view.blockedBy.map((c) => `blocked by: ${line(c)}`),
    ...view.blocking.map((c) => `blocking: ${line(c)}`),
    ...view.other.map((o) => `${o.kind}: ${line(o.ticket)}`),
  ].join('\n');
}
