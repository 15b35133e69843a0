import { toolDefiner } from '@toolmesh/core';
import { z } from 'zod';
import { parsePriority, parseStatus } from '../store/statuses.js';
import type { TicketStore } from '../store/store.js';

export const defineTool = toolDefiner<TicketStore>();

/** Ticket changes keep their history in events, so none of them loses anything. */
export {
  READ_ONLY_ANNOTATIONS as READ_ONLY,
  RECOVERABLE_WRITE_ANNOTATIONS as RECOVERABLE_WRITE,
} from '@toolmesh/core';

export const ticketArg = (what = 'The ticket') =>
  z.string().min(1).max(32).describe(`${what}: its id in this workspace, such as T-3.`);

export const statusArg = z
  .string()
  .min(1)
  .max(40)
  .describe(
    'backlog, todo, in_progress, in_review, done, failed or cancelled; aliases such as in-progress, doing, wip, open, completed and closed are accepted.',
  );

export const priorityArg = z.string().min(1).max(10).describe('P0 (most urgent), P1, P2 or P3.');

export const labelsArg = z.array(z.string().min(1).max(64)).max(50).describe('Label names.');

export const status = (value: string) => parseStatus(value);
export const priority = (value: string) => parsePriority(value);

const assignee = z.object({ agent: z.string().nullable(), team: z.string().nullable() });

export const summarySchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z.string(),
  priority: z.string(),
  labels: z.array(z.string()),
  assignee,
  parent: z.string().nullable(),
  updatedAt: z.string(),
  version: z.number().int(),
});

export const ticketSchema = summarySchema.extend({
  workspace_id: z.string(),
  description: z.string(),
  collaborators: z.array(z.string()),
  author: z.string(),
  createdAt: z.string(),
  output: z.string().nullable(),
  error: z.string().nullable(),
  prs: z.array(z.string()),
});

export const commentSchema = z.object({ author: z.string(), body: z.string(), createdAt: z.string() });

export const relationViewSchema = z.object({
  ticket: z.string(),
  parent: summarySchema.nullable(),
  children: z.array(summarySchema),
  blockedBy: z.array(summarySchema),
  blocking: z.array(summarySchema),
  other: z.array(z.object({ kind: z.string(), ticket: summarySchema })),
});

export function line(t: z.infer<typeof summarySchema>): string {
  const who = [t.assignee.agent, t.assignee.team].filter(Boolean).join(' / ');
  return `${t.id} [${t.status}] ${t.priority} ${t.title}${who ? ` @${who}` : ''}${t.labels.length ? ` #${t.labels.join(' #')}` : ''}`;
}

export function describeTicket(t: z.infer<typeof ticketSchema>): string {
  return [
    `${line(t)} (v${t.version})`,
    t.parent ? `parent ${t.parent}` : '',
    t.collaborators.length ? `collaborators: ${t.collaborators.join(', ')}` : '',
    t.prs.length ? `PRs: ${t.prs.join(', ')}` : '',
    t.output ? `output: ${t.output}` : '',
    t.error ? `error: ${t.error}` : '',
    t.description,
  ]
    .filter(Boolean)
    .join('\n');
}
