import { ToolError } from '@toolmesh/core';
import { z } from 'zod';
import {
  defineTool,
  domainArg,
  instantArg,
  line,
  memorySchema,
  RECOVERABLE_WRITE,
  reasonArg,
  statementArg,
} from './define.js';

export const proposeFact = defineTool({
  name: 'propose_fact',
  title: 'Store a fact',
  description:
    'Stores a short markdown fact in a domain (created on first use). Anyone may propose facts; valid_from says since when it holds (default now). A fact is never edited: to change one, supersede it.',
  capability: 'write',
  input: z.object({
    statement: statementArg,
    domain: domainArg.default('general'),
    valid_from: instantArg.optional().describe('Since when it holds (default now).'),
  }),
  output: z.object({ fact: memorySchema }),
  annotations: RECOVERABLE_WRITE,
  actions: ['memoryWrite'],
  workspaceScoped: true,
  render: (out) => `Stored ${line(out.fact)}`,
  async handle(args, { engine, workspace, identity }) {
    const fact = engine.propose(
      { workspace, identity },
      {
        kind: 'fact',
        domain: args.domain,
        body: args.statement,
        ...(args.valid_from !== undefined && { validFrom: args.valid_from }),
      },
    );
    return { fact };
  },
});

export const supersedeFact = defineTool({
  name: 'supersede_fact',
  title: 'Supersede a fact',
  description:
    "Replaces a current fact with a successor — a new statement, or an existing current fact named by `by` — for a stated reason. The old fact is kept, linked to its successor and closed at the successor's valid_from, so search with as_of still finds it for earlier dates; default search leaves it out.",
  capability: 'write',
  input: z.object({
    fact: z.string().min(1).max(32).describe('The fact replaced, e.g. F-12.'),
    statement: statementArg.optional().describe('The new fact (in the same domain).'),
    by: z.string().min(1).max(32).optional().describe('Or an existing current fact that replaces it.'),
    reason: reasonArg,
    valid_from: instantArg.optional().describe('Since when the new statement holds (default now).'),
  }),
  output: z.object({ old: memorySchema, successor: memorySchema }),
  annotations: RECOVERABLE_WRITE,
  actions: ['memoryWrite'],
  workspaceScoped: true,
  render: (out) => `${line(out.old)}\nsuperseded by ${line(out.successor)}`,
  async handle(args, { engine, workspace, identity }) {
    if ((args.statement === undefined) === (args.by === undefined)) {
      throw new ToolError(
        'give exactly one successor: `statement` for a new fact, or `by` for an existing one.',
        'bad_arguments',
      );
    }
    return engine.supersede({ workspace, identity }, 'fact', args.fact, {
      reason: args.reason,
      ...(args.statement !== undefined && { body: args.statement }),
      ...(args.by !== undefined && { by: args.by }),
      ...(args.valid_from !== undefined && { validFrom: args.valid_from }),
    });
  },
});
