import { ToolError } from '@toolmesh/core';
import { z } from 'zod';
import {
  commentSchema,
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

const name = z.string().min(1).max(200);

export const updateTicket = defineTool({
  name: 'update_ticket',
  title: 'Update a ticket',
  description:
    'Changes status, title, description, priority or labels (labels replace the set). Pass expected_version (from get_ticket) to refuse the change if someone else changed the ticket since: the conflict error carries the current version.',
  capability: 'write',
  input: z.object({
    ticket: ticketArg(),
    status: statusArg.optional(),
    title: z.string().min(1).max(500).optional(),
    description: z.string().max(100_000).optional().describe('Markdown; replaces the description.'),
    priority: priorityArg.optional(),
    labels: labelsArg.optional().describe('The new set of labels.'),
    expected_version: z.number().int().min(1).optional(),
  }),
  output: ticketSchema,
  annotations: RECOVERABLE_WRITE,
  actions: ['ticketWrite'],
  requiresApproval: true,
  workspaceScoped: true,
  render: describeTicket,
  async handle(args, { engine, workspace, identity }) {
    const changes = {
      ...(args.status !== undefined && { status: status(args.status) }),
      ...(args.priority !== undefined && { priority: priority(args.priority) }),
      ...(args.title !== undefined && { title: args.title }),
      ...(args.description !== undefined && { description: args.description }),
      ...(args.labels !== undefined && { labels: args.labels }),
    };
    if (Object.keys(changes).length === 0) {
      throw new ToolError(
        'nothing to change: give at least one of status, title, description, priority or labels.',
        'no_change',
      );
    }
    return engine.update({ workspace, identity }, args.ticket, changes, args.expected_version);
  },
});

export const assignTicket = defineTool({
  name: 'assign_ticket',
  title: 'Assign a ticket',
  description:
    'Assigns an agent, a team, or both, keeping the side not given. A ticket already held by another agent or team is refused: use reassign_ticket.',
  capability: 'write',
  input: z.object({ ticket: ticketArg(), agent: name.optional(), team: name.optional() }),
  output: ticketSchema,
  annotations: RECOVERABLE_WRITE,
  actions: ['ticketWrite'],
  requiresApproval: true,
  workspaceScoped: true,
  render: describeTicket,
  async handle(args, { engine, workspace, identity }) {
    if (args.agent === undefined && args.team === undefined) {
      throw new ToolError('give agent, team or both to assign.', 'no_assignee');
    }
    return engine.assign({ workspace, identity }, args.ticket, {
      ...(args.agent !== undefined && { agent: args.agent }),
      ...(args.team !== undefined && { team: args.team }),
    });
  },
});

export const reassignTicket = defineTool({
  name: 'reassign_ticket',
  title: 'Reassign a ticket',
  description:
    'Replaces the assignee: the agent and team given (a side left out is cleared). The history keeps who held it before.',
  capability: 'write',
  input: z.object({ ticket: ticketArg(), agent: name.optional(), team: name.optional() }),
  output: ticketSchema,
  annotations: RECOVERABLE_WRITE,
  actions: ['ticketWrite'],
  requiresApproval: true,
  workspaceScoped: true,
  render: describeTicket,
  async handle(args, { engine, workspace, identity }) {
    return engine.reassign({ workspace, identity }, args.ticket, {
      agent: args.agent ?? null,
      team: args.team ?? null,
    });
  },
});

export const addTicketCollaborator = defineTool({
  name: 'add_ticket_collaborator',
  title: 'Add a collaborator',
  description: 'Adds an agent or person who works on the ticket beside its assignee.',
  capability: 'write',
  input: z.object({ ticket: ticketArg(), collaborator: name }),
  output: ticketSchema,
  annotations: { ...RECOVERABLE_WRITE, idempotentHint: true },
  actions: ['ticketWrite'],
  workspaceScoped: true,
  render: describeTicket,
  async handle(args, { engine, workspace, identity }) {
    return engine.addCollaborator({ workspace, identity }, args.ticket, args.collaborator);
  },
});

export const commentOnTicket = defineTool({
  name: 'comment_on_ticket',
  title: 'Comment on a ticket',
  description: 'Adds a markdown comment, signed by the calling identity. Comments are searchable.',
  capability: 'write',
  input: z.object({ ticket: ticketArg(), body: z.string().min(1).max(100_000) }),
  output: z.object({ ticket: z.string(), version: z.number().int(), comments: z.array(commentSchema) }),
  annotations: RECOVERABLE_WRITE,
  actions: ['ticketWrite'],
  workspaceScoped: true,
  render: (out) => `Commented on ${out.ticket} (${out.comments.length} comment(s), v${out.version}).`,
  async handle(args, { engine, workspace, identity }) {
    const t = engine.comment({ workspace, identity }, args.ticket, args.body);
    return { ticket: t.id, version: t.version, comments: t.comments };
  },
});

export const closeTicket = defineTool({
  name: 'close_ticket',
  title: 'Close a ticket',
  description: 'Marks the ticket done, with an optional output (what was delivered).',
  capability: 'write',
  input: z.object({ ticket: ticketArg(), output: z.string().max(100_000).optional() }),
  output: ticketSchema,
  annotations: RECOVERABLE_WRITE,
  actions: ['ticketWrite'],
  requiresApproval: true,
  workspaceScoped: true,
  render: describeTicket,
  async handle(args, { engine, workspace, identity }) {
    return engine.close({ workspace, identity }, args.ticket, args.output);
  },
});

export const failTicket = defineTool({
  name: 'fail_ticket',
  title: 'Fail a ticket',
  description:
    'Marks the ticket failed with the error that stopped it. A failed ticket still blocks what it blocks.',
  capability: 'write',
  input: z.object({ ticket: ticketArg(), error: z.string().min(1).max(100_000) }),
  output: ticketSchema,
  annotations: RECOVERABLE_WRITE,
  actions: ['ticketWrite'],
  workspaceScoped: true,
  render: describeTicket,
  async handle(args, { engine, workspace, identity }) {
    return engine.fail({ workspace, identity }, args.ticket, args.error);
  },
});

export const delegateTicket = defineTool({
  name: 'delegate_ticket',
  title: 'Delegate part of a ticket',
  description:
    'Creates a child ticket of an open ticket, assigned to an agent, so the delegated work is tracked under its parent. Delegation chains are capped in depth (default 5).',
  capability: 'write',
  input: z.object({
    ticket: ticketArg('The parent ticket'),
    agent: name.describe('The agent that takes the child ticket.'),
    title: z.string().min(1).max(500),
    description: z.string().max(100_000).optional(),
    priority: priorityArg.optional().describe('Default P2.'),
    labels: labelsArg.optional(),
  }),
  output: ticketSchema,
  annotations: RECOVERABLE_WRITE,
  actions: ['ticketWrite'],
  workspaceScoped: true,
  render: (t) => `Delegated as ${t.id} to ${t.assignee.agent}.\n${describeTicket(t)}`,
  async handle(args, { engine, workspace, identity }) {
    return engine.delegate({ workspace, identity }, args.ticket, {
      agent: args.agent,
      title: args.title,
      ...(args.description !== undefined && { description: args.description }),
      ...(args.priority !== undefined && { priority: priority(args.priority) }),
      ...(args.labels !== undefined && { labels: args.labels }),
    });
  },
});
