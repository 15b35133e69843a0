import { toolDefiner } from '@toolmesh/core';
import type { Aggregator } from '../aggregator.js';
import type { AuditedCall } from '../audit/audited-call.js';
import type { Extra } from '../session-server/forward.js';
import type { ClientSession } from '../session-server/session.js';

/** What the aggregator's own tools work with: the whole registry and the calling session. */
export interface AggregatorToolEngine {
  aggregator: Aggregator;
  session: ClientSession;
  extra: Extra;
  /** The audit record of this tools/call; call_tool hands it to its target, so one call is one record. */
  audit: AuditedCall;
}

export const defineTool = toolDefiner<AggregatorToolEngine>();
