import { z } from 'zod';

/** The `discovery` key: how search_tool_bm25 learns from use, and an optional embeddings stage. */
export const discoverySchema = z.strictObject({
  learnFromUse: z
    .boolean()
    .default(true)
    .describe(
      'Tie the words of a session’s searches to the tool it then calls, and lift that tool a little when those words come again. Kept in discovery.sqlite beside the state, or in Redis for the whole fleet when the state is there; never the call’s arguments.',
    ),
  learnedHalfLifeDays: z
    .number()
    .positive()
    .default(30)
    .describe('After this many days unused, a learnt link counts half as much.'),
  maxLearnedAssociations: z
    .number()
    .int()
    .positive()
    .default(20_000)
    .describe('The most term-to-tool links kept; the weakest are dropped first.'),
  embeddings: z
    .strictObject({
      url: z
        .url({ protocol: /^https?$/ })
        .describe(
          'An OpenAI-compatible endpoint: its base (http://127.0.0.1:11434/v1) or its /embeddings URL.',
        ),
      model: z.string().min(1).describe('The embeddings model to ask for.'),
      apiKey: z.string().min(1).optional().describe('Sent as a bearer token; never logged.'),
      timeoutMs: z.number().int().positive().optional().describe('Per request; default 30000.'),
    })
    .optional()
    .describe(
      'Rank tools with an embeddings model too: each tool embedded once per registry change, each query once, fused with BM25. Without it nothing changes.',
    ),
});

export const DISCOVERY_DEFAULTS = discoverySchema.parse({});
