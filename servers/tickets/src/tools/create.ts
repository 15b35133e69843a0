import { z } from 'zod';
import {
  defineTool,
  describeTicket,
  labelsArg,
  priority,
  priorityArg,
  RECOVERABLE_WRITE,
  status,
  statusArg,
  ticketArg,
  ticketSchema,
} from './define.js';

const spec = z.object({
  title: z.string().min(1).max(500),
  description: z.string().max(100_000).optional().describe('Markdown.'),
  status: statusArg.optional().describe('Default todo. Same names as update_ticket.'),
  priority: priorityArg.optional().describe('Default P2.'),
  labels: labelsArg.optional(),
  agent: z.string().min(1).max(200).optional().describe('The agent assigned.'),
  team: z.string().min(1).max(200).optional().describe('The team assigned.'),
  parent: ticketArg('The parent ticket').optional(),
});

export const createTicket = defineTool({
  name: 'create_ticket',
  title: 'Create tickets',
  description:
    'Creates one or more tickets (up to 50 in one all-or-nothing batch), each numbered T-1, T-2… in its workspace. With dry_run every ticket is checked and previewed but nothing is saved.',
  capability: 'write',
  input: z.object({
    tickets: z.array(spec).min(1).max(50).describe('The tickets to create, in order.'),
    dry_run: z.boolean().default(false).describe('Check and preview without saving.'),
  }),
  output: z.object({ dryRun: z.boolean(), tickets: z.array(ticketSchema) }),
  annotations: RECOVERABLE_WRITE,
  actions: ['ticketWrite'],
  requiresApproval: true,
  workspaceScoped: true,
  render: (out) =>
    [
      `${out.dryRun ? 'Would create' : 'Created'} ${out.tickets.length}:`,
      ...out.tickets.map(describeTicket),
    ].join('\n\n'),
  async handle(args, { engine, workspace, identity }) {
    const tickets = args.tickets.map((t) => ({
      title: t.title,
      ...(t.description !== undefined && { description: t.description }),
      ...(t.status !== undefined && { status: status(t.status) }),
      ...(t.priority !== undefined && { priority: priority(t.priority) }),
      ...(t.labels !== undefined && { labels: t.labels }),
      assignee: { agent: t.agent ?? null, team: t.team ?? null },
      ...(t.parent !== undefined && { parent: t.parent }),
    }));
    const created = engine.create({ workspace, identity }, tickets, { dryRun: args.dry_run });
    return { dryRun: args.dry_run, tickets: created };
  },
});
