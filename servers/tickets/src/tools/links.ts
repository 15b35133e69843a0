import { z } from 'zod';
import { parseRelationKind, RELATION_KINDS } from '../store/relations.js';
import {
  defineTool,
  describeTicket,
  RECOVERABLE_WRITE,
  relationViewSchema,
  ticketArg,
  ticketSchema,
} from './define.js';
import { renderRelations } from './read.js';

export const ticketPrLink = defineTool({
  name: 'ticket_pr_link',
  title: 'Link a pull request',
  description: 'Links a pull request to a ticket, or unlinks it, by its URL or its GitHub node id (PR_…).',
  capability: 'write',
  input: z.object({
    ticket: ticketArg(),
    action: z.enum(['link', 'unlink']).default('link'),
    pr: z.string().min(1).max(500).describe('https://github.com/OWNER/REPO/pull/N or a PR_… node id.'),
  }),
  output: ticketSchema,
  annotations: RECOVERABLE_WRITE,
  actions: ['ticketWrite'],
  workspaceScoped: true,
  render: describeTicket,
  async handle(args, { engine, workspace, identity }) {
    return engine.linkPr({ workspace, identity }, args.ticket, args.action, args.pr);
  },
});

export const ticketRelation = defineTool({
  name: 'ticket_relation',
  title: 'Relate two tickets',
  description: `Adds or removes a relation from ticket to other: ${RELATION_KINDS.join(', ')}. The inverse is kept on the other ticket (blocked_by ↔ blocking, sub_issue_of ↔ parent_of, duplicate_of ↔ duplicated_by, discovered_from ↔ led_to). A relation that would close a cycle of blockers or parents is refused with the cycle shown. sub_issue_of replaces an existing parent.`,
  capability: 'write',
  input: z.object({
    ticket: ticketArg(),
    action: z.enum(['add', 'remove']).default('add'),
    relation: z
      .string()
      .min(1)
      .max(40)
      .describe(`One of ${RELATION_KINDS.join(', ')}.`),
    other: ticketArg('The other ticket'),
  }),
  output: relationViewSchema,
  annotations: RECOVERABLE_WRITE,
  actions: ['ticketWrite'],
  requiresApproval: true,
  workspaceScoped: true,
  render: renderRelations,
  async handle(args, { engine, workspace, identity }) {
    return engine.relate(
      { workspace, identity },
      args.ticket,
      args.action,
      parseRelationKind(args.relation),
      args.other,
    );
  },
});
