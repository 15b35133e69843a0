import { budgetFields, cursorArg, maxTokensArg, requestedPage } from '@toolmesh/core';
import { z } from 'zod';
import { defineTool, more, READ_ONLY } from './define.js';

export const listMemoryDomains = defineTool({
  name: 'list_memory_domains',
  title: 'List memory domains',
  description:
    'The memory domains of the workspace with their counts of current facts, active policies and observations, their creator and policy writers, and whether you may write policies in each.',
  capability: 'read',
  input: z.object({ maxTokens: maxTokensArg, cursor: cursorArg }),
  output: z.object({
    domains: z.array(
      z.object({
        name: z.string(),
        creator: z.string(),
        writers: z.array(z.string()),
        facts: z.number().int(),
        policies: z.number().int(),
        observations: z.number().int(),
        canWritePolicies: z.boolean(),
      }),
    ),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  workspaceScoped: true,
  render: (out) =>
    [
      out.domains.length
        ? ''
        : 'No domain yet: the first propose_fact, propose_policy or record_observation creates one.',
      ...out.domains.map(
        (d) =>
          `${d.name}: ${d.facts} fact(s), ${d.policies} polic${d.policies === 1 ? 'y' : 'ies'}, ${d.observations} observation(s); creator ${d.creator}${d.writers.length ? `, writers ${d.writers.join(', ')}` : ''}${d.canWritePolicies ? ' (you may write policies)' : ''}`,
      ),
      ...more(out),
    ]
      .filter(Boolean)
      .join('\n'),
  async handle(args, { engine, workspace, identity }) {
    const { items, ...budget } = requestedPage(engine.store.listDomains({ workspace, identity }), args);
    return { domains: items, ...budget };
  },
});
