import { toolDefiner } from '@toolmesh/core';
import { z } from 'zod';
import type { MemoryEngine } from '../engine.js';
import type { HotItem } from '../hot/hot-memory.js';
import type { Conflict, Memory } from '../store/types.js';

export const defineTool = toolDefiner<MemoryEngine>();

/** Memory writes add rows or close them; none deletes what it replaces. */
export {
  READ_ONLY_ANNOTATIONS as READ_ONLY,
  RECOVERABLE_WRITE_ANNOTATIONS as RECOVERABLE_WRITE,
} from '@toolmesh/core';

export const domainArg = z
  .string()
  .min(1)
  .max(64)
  .describe(
    'The memory domain (an area such as "deploy" or "api"); created on first write. Default "general".',
  );

export const statementArg = z.string().trim().min(1).max(4000).describe('A short markdown statement.');

export const instantArg = z
  .string()
  .max(40)
  .describe('A UTC date (2026-03-01) or an ISO time with a zone (2026-03-01T09:30:00Z).');

export const reasonArg = z.string().trim().min(1).max(1000).describe('Why: kept with the history.');

export const memorySchema = z.object({
  id: z.string(),
  kind: z.enum(['fact', 'policy', 'observation']),
  domain: z.string(),
  body: z.string(),
  author: z.string(),
  source: z.string().nullable(),
  validFrom: z.string(),
  validUntil: z.string().nullable(),
  recordedAt: z.string(),
  status: z.enum(['current', 'superseded', 'retired']),
  supersededBy: z.string().nullable(),
  supersedes: z.array(z.string()),
  change: z.object({ reason: z.string(), by: z.string(), at: z.string() }).nullable(),
});

export const hotItemSchema = z.object({
  id: z.string(),
  identity: z.string(),
  domain: z.string(),
  text: z.string(),
  durable: z.boolean(),
  createdAt: z.string(),
  notedAt: z
    .string()
    .describe('When it was last said: its creation, or the latest time it was remembered again.'),
  expiresAt: z.string(),
  recalls: z.number().int(),
});

export const conflictSchema = z.object({
  id: z.string(),
  domain: z.string(),
  older: memorySchema,
  newer: memorySchema,
  method: z.string(),
  explanation: z.string(),
  suggestion: z.string(),
  status: z.enum(['open', 'resolved']),
  resolution: z.string().nullable(),
  detectedBy: z.string(),
  detectedAt: z.string(),
  resolvedAt: z.string().nullable(),
});

export function line(memory: Memory): string {
  const state =
    memory.status === 'current'
      ? ''
      : ` [${memory.status}${memory.supersededBy ? ` → ${memory.supersededBy}` : ''}]`;
  return `${memory.id} (${memory.domain}, ${memory.author}, from ${memory.validFrom}${memory.validUntil ? ` until ${memory.validUntil}` : ''})${state}: ${memory.body}`;
}

export function hotLine(item: HotItem): string {
  return `${item.id}${item.durable ? ' [durable]' : ''} (${item.identity}, until ${item.expiresAt}, recalled ${item.recalls}×): ${item.text}`;
}

export function conflictLine(conflict: Conflict): string {
  return [
    `${conflict.id} [${conflict.status}] ${conflict.domain} — ${conflict.method}: ${conflict.explanation}`,
    `  older ${line(conflict.older)}`,
    `  newer ${line(conflict.newer)}`,
    `  suggested: ${conflict.suggestion}${conflict.resolution ? `; resolved: ${conflict.resolution}` : ''}`,
  ].join('\n');
}

/** The closing line of a cut page; a page blocked by one entry over the budget carries no cursor of its own. */
export const more = (out: {
  truncated: boolean;
  nextCursor?: string | undefined;
  blockedByBudget?: boolean | undefined;
  minimumRequiredBytes?: number | undefined;
}) => {
  if (!out.truncated) return [];
  if (out.blockedByBudget) {
    const needed = out.minimumRequiredBytes ?? 0;
    return [
      `… the next entry alone needs ${needed} bytes: call again with maxTokens of at least ${needed} and the same cursor`,
    ];
  }
  return [`… more: call again with cursor ${out.nextCursor}`];
};
