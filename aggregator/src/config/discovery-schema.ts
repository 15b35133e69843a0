import { z } from 'zod';

/** The `discovery` key: how search_tool_bm25 learns from use, and an optional embeddings stage. */
export const discoverySchema = z.strictObject({
  learnFromUse: z
    .boolean()
    .default(true)
    .describe(
      'Tie the words of a session’s searches to the tool it then calls, and lift that tool a little when those words come again. Kept in discovery.sqlite beside the state; never the call’s arguments.',
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
});

export const DISCOVERY_DEFAULTS = discoverySchema.parse({});
