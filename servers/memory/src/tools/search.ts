import { budgetFields, cursorArg, maxTokensArg, requestedPage } from '@toolmesh/core';
import { z } from 'zod';
import { SEARCH_MODES } from '../engine.js';
import { parseInstant } from '../store/clock.js';
import { MEMORY_KINDS } from '../store/types.js';
import {
  defineTool,
  domainArg,
  hotItemSchema,
  hotLine,
  instantArg,
  line,
  memorySchema,
  more,
  READ_ONLY,
} from './define.js';

export const searchMemory = defineTool({
  name: 'search_memory',
  title: 'Search memory',
  description:
    'Searches facts and policies (observations on request) of the workspace: keyword (FTS5 BM25: exact terms, names, numbers; when every word is in a large share of the entries, the newest matches first, said in note), semantic (embeddings: same meaning in other words) or hybrid (both, fused by reciprocal rank; the default). Superseded facts and retired policies are left out unless asked; as_of answers "what held on that date" from the validity periods. Also returns your live hot-memory items that share words with the query (counted as recalls). Best first; budgeted.',
  capability: 'read',
  input: z.object({
    query: z.string().min(1).max(1000).describe('What to find, in words.'),
    mode: z.enum(SEARCH_MODES).default('hybrid'),
    domain: domainArg.optional().describe('Only this domain.'),
    kinds: z
      .array(z.enum(MEMORY_KINDS))
      .min(1)
      .max(3)
      .default(['fact', 'policy'])
      .describe('Which kinds of entry: fact, policy, observation (default fact and policy).'),
    include_superseded: z
      .boolean()
      .default(false)
      .describe('Also facts and policies replaced by a successor.'),
    include_inactive: z.boolean().default(false).describe('Also retired policies.'),
    as_of: instantArg.optional().describe('Only entries valid at this instant, whatever their status since.'),
    include_hot: z.boolean().default(true).describe('Also your matching hot-memory items.'),
    limit: z.number().int().min(1).max(100).default(20),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    hits: z.array(
      memorySchema.extend({
        score: z.number(),
        via: z.array(z.enum(['keyword', 'semantic'])),
      }),
    ),
    hot: z.array(hotItemSchema),
    semantic: z
      .object({
        provider: z.string(),
        embedded: z.number().int().optional(),
        total: z.number().int().optional(),
      })
      .optional()
      .describe('The embeddings provider; while rows are being embedded, how many of them are.'),
    warnings: z.array(z.string()),
    note: z
      .string()
      .optional()
      .describe('Set when the keyword hits are newest first rather than BM25-ranked, and why.'),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  workspaceScoped: true,
  render: (out) =>
    [
      out.hits.length ? '' : 'No match in long-term memory.',
      out.note ?? '',
      ...out.hits.map((hit) => `${line(hit)} (score ${hit.score.toFixed(3)}, ${hit.via.join('+')})`),
      ...more(out),
      ...out.hot.map((item) => `hot ${hotLine(item)}`),
      ...out.warnings.map((warning) => `warning: ${warning}`),
    ]
      .filter(Boolean)
      .join('\n'),
  async handle(args, { engine, workspace, identity }) {
    const result = await engine.search(
      { workspace, identity },
      {
        query: args.query,
        mode: args.mode,
        limit: args.limit,
        includeHot: args.include_hot,
        filter: {
          kinds: [...new Set(args.kinds)],
          ...(args.domain !== undefined && { domain: args.domain }),
          includeSuperseded: args.include_superseded,
          includeInactive: args.include_inactive,
          ...(args.as_of !== undefined && { asOf: parseInstant(args.as_of, 'as_of') }),
        },
      },
    );
    const hits = result.hits.map((hit) => ({ ...hit.memory, score: hit.score, via: hit.via }));
    const { items, ...budget } = requestedPage(hits, args);
    return {
      hits: items,
      hot: result.hot,
      ...(result.semantic && { semantic: result.semantic }),
      warnings: result.warnings,
      ...(result.note !== undefined && { note: result.note }),
      ...budget,
    };
  },
});
