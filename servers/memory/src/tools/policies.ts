import { budgetFields, cursorArg, maxTokensArg, requestedWindowPage } from '@toolmesh/core';
import { z } from 'zod';
import {
  defineTool,
  domainArg,
  line,
  memorySchema,
  more,
  READ_ONLY,
  RECOVERABLE_WRITE,
  reasonArg,
  statementArg,
} from './define.js';

export const proposePolicy = defineTool({
  name: 'propose_policy',
  title: 'Store a policy',
  description:
    'Stores a normative rule in a domain. Needs write rights on the domain: its creator (the first identity to write in it) and the identities given with --domain-writer may write policies; a new domain is created with the caller as its creator.',
  capability: 'write',
  input: z.object({ statement: statementArg, domain: domainArg.default('general') }),
  output: z.object({ policy: memorySchema }),
  annotations: RECOVERABLE_WRITE,
  actions: ['memoryWrite'],
  workspaceScoped: true,
  render: (out) => `Stored ${line(out.policy)}`,
  async handle(args, { engine, workspace, identity }) {
    return {
      policy: engine.propose(
        { workspace, identity },
        { kind: 'policy', domain: args.domain, body: args.statement },
      ),
    };
  },
});

export const supersedePolicy = defineTool({
  name: 'supersede_policy',
  title: 'Retire or replace a policy',
  description:
    'Retires a policy — inactive from now, kept with its reason for audit — or, with `statement`, replaces it with a new policy that it links to. Needs write rights on its domain.',
  capability: 'write',
  input: z.object({
    policy: z.string().min(1).max(32).describe('The policy, e.g. P-3.'),
    reason: reasonArg,
    statement: statementArg.optional().describe('The replacing policy, if any.'),
  }),
  output: z.object({ old: memorySchema, successor: memorySchema.nullable() }),
  annotations: RECOVERABLE_WRITE,
  actions: ['memoryWrite'],
  workspaceScoped: true,
  render: (out) => `${line(out.old)}${out.successor ? `\nreplaced by ${line(out.successor)}` : ''}`,
  async handle(args, { engine, workspace, identity }) {
    const actor = { workspace, identity };
    if (args.statement === undefined) {
      return { old: engine.store.retirePolicy(actor, args.policy, args.reason), successor: null };
    }
    return engine.supersede(actor, 'policy', args.policy, { reason: args.reason, body: args.statement });
  },
});

export const listPolicies = defineTool({
  name: 'list_policies',
  title: 'List policies',
  description:
    'The active policies of the workspace (or of one domain), newest first; retired and replaced ones with include_inactive. Budgeted: continue with nextCursor.',
  capability: 'read',
  input: z.object({
    domain: domainArg.optional().describe('Only this domain.'),
    include_inactive: z.boolean().default(false).describe('Also retired and replaced policies.'),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({ total: z.number().int(), policies: z.array(memorySchema), ...budgetFields }),
  annotations: READ_ONLY,
  actions: ['read'],
  workspaceScoped: true,
  render: (out) =>
    [`${out.total} polic${out.total === 1 ? 'y' : 'ies'}`, ...out.policies.map(line), ...more(out)].join(
      '\n',
    ),
  async handle(args, { engine, workspace }) {
    // An entry is well over 200 bytes.
    const { items, ...page } = requestedWindowPage(args, 200, (window) => {
      const { total, memories } = engine.store.list(
        workspace,
        {
          kinds: ['policy'],
          ...(args.domain !== undefined && { domain: args.domain }),
          includeSuperseded: args.include_inactive,
          includeInactive: args.include_inactive,
        },
        window,
      );
      return { total, items: memories };
    });
    return { policies: items, ...page };
  },
});
