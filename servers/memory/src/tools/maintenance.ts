import { budgetFields, cursorArg, maxTokensArg, requestedWindowPage } from '@toolmesh/core';
import { z } from 'zod';
import {
  conflictLine,
  conflictSchema,
  defineTool,
  domainArg,
  hotItemSchema,
  line,
  memorySchema,
  more,
  READ_ONLY,
  RECOVERABLE_WRITE,
} from './define.js';

/** The most entries a consolidate or harmonize answer lists (with their counts); list_memory_conflicts pages through all conflicts. */
const LISTED = 20;

const promotion = z.object({ item: hotItemSchema, fact: memorySchema });

export const consolidateMemory = defineTool({
  name: 'consolidate_memory',
  title: 'Consolidate memory',
  description:
    'The "sleep" pass over the workspace\'s hot memory: drops expired items, and turns those marked durable or recalled repeatedly into facts (authored by whoever remembered them, in their domain). An item whose statement is already a current fact is merged into it instead of duplicating it; one whose statement was superseded after it was last remembered is out of date and is not brought back (the successor is linked). Promoted, merged and out-of-date items leave hot memory.',
  capability: 'write',
  input: z.object({}),
  output: z.object({
    expired: z.number().int(),
    promoted: z.array(promotion).describe(`Items made facts (at most ${LISTED}; see promotedCount).`),
    promotedCount: z.number().int(),
    alreadyKnown: z.array(promotion).describe(`Items merged into an existing fact (at most ${LISTED}).`),
    alreadyKnownCount: z.number().int(),
    outdated: z
      .array(promotion)
      .describe(
        `Items whose statement was superseded after they were last remembered, with that superseded fact (at most ${LISTED}).`,
      ),
    outdatedCount: z.number().int(),
    kept: z.number().int().describe('Live items left in hot memory.'),
  }),
  annotations: RECOVERABLE_WRITE,
  actions: ['memoryWrite'],
  workspaceScoped: true,
  render: (out) =>
    [
      `${out.expired} expired item(s) dropped; ${out.promotedCount} promoted; ${out.alreadyKnownCount} already known; ${out.outdatedCount} out of date; ${out.kept} kept.`,
      ...out.promoted.map((p) => `${p.item.id} → ${line(p.fact)}`),
      ...out.alreadyKnown.map((p) => `${p.item.id} = ${line(p.fact)}`),
      ...out.outdated.map((p) => `${p.item.id} out of date: ${line(p.fact)}`),
    ].join('\n'),
  async handle(_args, { engine, workspace, identity }) {
    const pass = await engine.consolidate({ workspace, identity });
    return {
      expired: pass.expired,
      promoted: pass.promoted.slice(0, LISTED),
      promotedCount: pass.promoted.length,
      alreadyKnown: pass.alreadyKnown.slice(0, LISTED),
      alreadyKnownCount: pass.alreadyKnown.length,
      outdated: pass.outdated.slice(0, LISTED),
      outdatedCount: pass.outdated.length,
      kept: pass.kept,
    };
  },
});

export const harmonizeMemory = defineTool({
  name: 'harmonize_memory',
  title: 'Harmonize memory',
  description:
    'Compares the current facts of each domain (or one), across identities, and records contradictions: the same subject with one statement negated, opposite words (enable/disable, allow/deny…), or different values (ports, numbers, versions, days). Each conflict names both facts, the rule and the words that fired, and a suggested resolution (newer_supersedes_older, or keep_both_flagged). With resolve=true the suggestion is applied as a supersession whose reason names the conflict; nothing is deleted. Conflicts whose facts were superseded since are closed.',
  capability: 'write',
  input: z.object({
    domain: domainArg.optional().describe('Only this domain (default all).'),
    resolve: z.boolean().default(false).describe('Apply "newer supersedes older" where suggested.'),
  }),
  output: z.object({
    facts: z.number().int(),
    pairs: z.number().int().describe('Pairs of facts sharing a subject word, compared.'),
    found: z.array(conflictSchema).describe(`New conflicts (at most ${LISTED}; see foundCount).`),
    foundCount: z.number().int(),
    resolved: z.array(conflictSchema).describe(`Conflicts closed by this pass (at most ${LISTED}).`),
    resolvedCount: z.number().int(),
    open: z.number().int(),
  }),
  annotations: RECOVERABLE_WRITE,
  actions: ['memoryWrite'],
  workspaceScoped: true,
  render: (out) =>
    [
      `${out.facts} fact(s), ${out.pairs} pair(s) compared: ${out.foundCount} new conflict(s), ${out.resolvedCount} resolved, ${out.open} open.`,
      ...out.found.map(conflictLine),
      ...out.resolved.map(conflictLine),
    ].join('\n'),
  async handle(args, { engine, workspace, identity }) {
    const pass = engine.harmonize(
      { workspace, identity },
      { resolve: args.resolve, ...(args.domain !== undefined && { domain: args.domain }) },
    );
    return {
      facts: pass.facts,
      pairs: pass.pairs,
      found: pass.found.slice(0, LISTED),
      foundCount: pass.found.length,
      resolved: pass.resolved.slice(0, LISTED),
      resolvedCount: pass.resolved.length,
      open: pass.open,
    };
  },
});

export const listMemoryConflicts = defineTool({
  name: 'list_memory_conflicts',
  title: 'List memory conflicts',
  description:
    'Contradictions harmonize_memory recorded, newest first: both facts, the rule that found them, the suggested resolution and, once resolved, how. Filter by status and domain; budgeted.',
  capability: 'read',
  input: z.object({
    status: z.enum(['open', 'resolved']).optional(),
    domain: domainArg.optional(),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({ total: z.number().int(), conflicts: z.array(conflictSchema), ...budgetFields }),
  annotations: READ_ONLY,
  actions: ['read'],
  workspaceScoped: true,
  render: (out) => [`${out.total} conflict(s)`, ...out.conflicts.map(conflictLine), ...more(out)].join('\n'),
  async handle(args, { engine, workspace }) {
    // A conflict carries two facts, well over 500 bytes.
    const { items, ...page } = requestedWindowPage(args, 500, (window) => {
      const { total, conflicts } = engine.conflicts.list(
        workspace,
        {
          ...(args.status && { status: args.status }),
          ...(args.domain !== undefined && { domain: args.domain }),
        },
        window,
      );
      return { total, items: conflicts };
    });
    return { conflicts: items, ...page };
  },
});
