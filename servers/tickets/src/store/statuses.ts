import { ToolError } from '@toolmesh/core';

export const STATUSES = [
  'backlog',
  'todo',
  'in_progress',
  'in_review',
  'done',
  'failed',
  'cancelled',
] as const;
export type Status = (typeof STATUSES)[number];

/** Finished tickets: not open, and out of the ready queue. */
export const TERMINAL_STATUSES: readonly Status[] = ['done', 'failed', 'cancelled'];
/** A blocker in one of these no longer blocks; a failed one still does, its work was never done. */
export const RESOLVED_STATUSES: readonly Status[] = ['done', 'cancelled'];

// Maps, not objects: a status or priority is whatever the caller wrote, `constructor` included.
const ALIASES: ReadonlyMap<string, Status> = new Map([
  ['open', 'todo'],
  ['new', 'todo'],
  ['to_do', 'todo'],
  ['ready', 'todo'],
  ['icebox', 'backlog'],
  ['doing', 'in_progress'],
  ['wip', 'in_progress'],
  ['started', 'in_progress'],
  ['active', 'in_progress'],
  ['inprogress', 'in_progress'],
  ['review', 'in_review'],
  ['reviewing', 'in_review'],
  ['inreview', 'in_review'],
  ['completed', 'done'],
  ['complete', 'done'],
  ['closed', 'done'],
  ['resolved', 'done'],
  ['finished', 'done'],
  ['fixed', 'done'],
  ['error', 'failed'],
  ['errored', 'failed'],
  ['fail', 'failed'],
  ['canceled', 'cancelled'],
  ['cancel', 'cancelled'],
  ['wontfix', 'cancelled'],
]);

/** Reads a status the way people and models write it: any case, spaces or hyphens, common synonyms. */
export function parseStatus(value: string): Status {
  const key = value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  if ((STATUSES as readonly string[]).includes(key)) return key as Status;
  const alias = ALIASES.get(key) ?? ALIASES.get(key.replace(/_/g, ''));
  if (alias) return alias;
  throw new ToolError(
    `unknown status "${value}": use one of ${STATUSES.join(', ')} (aliases such as in-progress, doing, wip, open, completed and closed work too).`,
    'invalid_status',
  );
}

export const PRIORITIES = ['P0', 'P1', 'P2', 'P3'] as const;
export type Priority = (typeof PRIORITIES)[number];

const PRIORITY_WORDS: ReadonlyMap<string, Priority> = new Map([
  ['urgent', 'P0'],
  ['critical', 'P0'],
  ['high', 'P1'],
  ['medium', 'P2'],
  ['normal', 'P2'],
  ['low', 'P3'],
]);

export function parsePriority(value: string): Priority {
  const key = value.trim().toLowerCase();
  const numbered = /^p?([0-3])$/.exec(key);
  if (numbered) return `P${numbered[1]}` as Priority;
  const word = PRIORITY_WORDS.get(key);
  if (word) return word;
  throw new ToolError(
    `unknown priority "${value}": use P0 (most urgent), P1, P2 or P3 (or urgent, high, medium, low).`,
    'invalid_priority',
  );
}
