import { toolDefiner } from '@toolmesh/core';
import type { Aggregator } from '../aggregator.js';
import type { Extra } from '../front/forward.js';
import type { FrontSession } from '../front/session.js';

/** What the aggregator's own tools work with: the whole registry and the calling session. */
export interface AggregatorToolEngine {
  aggregator: Aggregator;
  session: FrontSession;
  extra: Extra;
}

export const defineTool = toolDefiner<AggregatorToolEngine>();
