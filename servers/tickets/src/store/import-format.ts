import { ToolError } from '@toolmesh/core';
import { z } from 'zod';
import { formatRef, parsePr, parseRef } from './refs.js';
import { parsePriority, parseStatus } from './statuses.js';

/**
 * What `import` accepts: an export (see WorkspaceExport), read as leniently as the tools read
 * their arguments (status aliases, priority words, ticket ids as people write them), and checked
 * whole before anything is written, so a bad ticket is named and nothing is imported.
 */

/** A string read by one of the store's parsers; its error message becomes the field's. */
const parsedBy = <T>(parse: (value: string) => T) =>
  z.string().transform((value, context) => {
    try {
      return parse(value);
    } catch (error) {
      context.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

const ticketId = parsedBy((value) => formatRef(parseRef(value)));
const timestamp = z.iso.datetime({ error: 'expected an ISO date-time such as 2026-01-31T12:00:00.000Z' });
const names = z.array(z.string().trim().min(1, 'expected a non-empty name'));

const ticketSchema = z.object({
  id: ticketId,
  title: z.string().trim().min(1, 'expected a non-empty title'),
  description: z.string().default(''),
  status: parsedBy(parseStatus),
  priority: parsedBy(parsePriority).default('P2'),
  labels: names.default([]),
  assignee: z
    .object({
      agent: z.string().min(1).nullable().default(null),
      team: z.string().min(1).nullable().default(null),
    })
    .default({ agent: null, team: null }),
  collaborators: names.default([]),
  parent: ticketId.nullable().default(null),
  author: z.string().min(1).optional(),
  output: z.string().nullable().default(null),
  error: z.string().nullable().default(null),
  version: z.number().int().min(1).default(1),
  createdAt: timestamp,
  updatedAt: timestamp,
  prs: z.array(parsedBy(parsePr)).default([]),
  comments: z
    .array(z.object({ author: z.string().min(1), body: z.string(), createdAt: timestamp }))
    .default([]),
});

const exportSchema = z.object({
  tickets: z.array(ticketSchema),
  relations: z
    .array(
      z.object({
        from: ticketId,
        kind: z.enum(['blocks', 'related_to', 'duplicate_of', 'discovered_from']),
        to: ticketId,
      }),
    )
    .default([]),
  events: z
    .array(
      z.object({
        ticket: ticketId,
        kind: z.string().min(1),
        author: z.string().min(1),
        detail: z.record(z.string(), z.unknown()).default({}),
        createdAt: timestamp,
      }),
    )
    .default([]),
});

export type ImportedWorkspace = z.infer<typeof exportSchema>;

type Raw = { tickets?: unknown[]; relations?: unknown[]; events?: unknown[] };

/** "ticket at index 2 (T-3)": the item an issue path points into, as the file holds it. */
function itemOf(raw: Raw, path: readonly PropertyKey[]): string {
  const [list, index] = path;
  const item = (raw[list as keyof Raw]?.[index as number] ?? {}) as Record<string, unknown>;
  const shown = (value: unknown) => (typeof value === 'string' ? value : '?');
  if (list === 'tickets') {
    return `ticket at index ${String(index)} (${typeof item.id === 'string' ? item.id : 'no id'})`;
  }
  if (list === 'relations') {
    return `relation at index ${String(index)} (${shown(item.from)} → ${shown(item.to)})`;
  }
  return `event at index ${String(index)} (${shown(item.ticket)})`;
}

/** `comments[0].body`: the field within the item. */
function fieldOf(path: readonly PropertyKey[]): string {
  return path
    .slice(2)
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`))
    .join('');
}

function refused(problems: string[]): ToolError {
  const shown = problems.slice(0, 5);
  const more = problems.length > shown.length ? `\n… and ${problems.length - shown.length} more` : '';
  return new ToolError(
    `the export is not valid, so nothing was imported:\n${shown.map((p) => `- ${p}`).join('\n')}${more}\nFix the file and import it again.`,
    'invalid_import',
  );
}

/** Every reference to a ticket names one the file holds, and no id is there twice. */
function crossChecked(data: ImportedWorkspace): string[] {
  const problems: string[] = [];
  const first = new Map<string, number>();
  data.tickets.forEach((ticket, index) => {
    const earlier = first.get(ticket.id);
    if (earlier !== undefined) {
      problems.push(
        `ticket at index ${index} (${ticket.id}): id: ${ticket.id} is also the id at index ${earlier}.`,
      );
    } else first.set(ticket.id, index);
  });
  const held = (ref: string) => first.has(ref);
  data.tickets.forEach((ticket, index) => {
    if (ticket.parent !== null && !held(ticket.parent)) {
      problems.push(`ticket at index ${index} (${ticket.id}): parent: ${ticket.parent} is not in the file.`);
    }
  });
  data.relations.forEach((relation, index) => {
    for (const side of ['from', 'to'] as const) {
      if (!held(relation[side])) {
        problems.push(
          `relation at index ${index} (${relation.from} → ${relation.to}): ${side}: ${relation[side]} is not in the file.`,
        );
      }
    }
  });
  data.events.forEach((event, index) => {
    if (!held(event.ticket)) {
      problems.push(`event at index ${index} (${event.ticket}): ticket: ${event.ticket} is not in the file.`);
    }
  });
  return problems;
}

/** The export, checked whole; a ToolError listing each bad item, field and expectation otherwise. */
export function parseExport(data: unknown): ImportedWorkspace {
  const raw = data as { format?: unknown; version?: unknown; tickets?: unknown } | null;
  if (raw?.format !== 'toolmesh-tickets' || raw.version !== 1 || !Array.isArray(raw.tickets)) {
    throw new ToolError(
      'not a toolmesh-tickets export (format "toolmesh-tickets", version 1, a tickets array).',
      'invalid_import',
    );
  }
  const parsed = exportSchema.safeParse(data);
  if (!parsed.success) {
    throw refused(
      parsed.error.issues.map((issue) => {
        if (issue.path.length < 2) return `${String(issue.path[0])}: ${issue.message}`;
        const field = fieldOf(issue.path);
        return `${itemOf(raw as Raw, issue.path)}: ${field ? `${field}: ` : ''}${issue.message}`;
      }),
    );
  }
  const problems = crossChecked(parsed.data);
  if (problems.length > 0) throw refused(problems);
  return parsed.data;
}
