import { toolDefiner } from '@toolmesh/core';
import type { AuditedCall } from '../audit/audited-call.js';
import type { Extra } from '../session-server/call-channel.js';
import type { ClientSession } from '../session-server/session.js';
import type { SessionBackend } from '../session-server/session-backend.js';

/** What the aggregator's own tools work with: the whole registry and the calling session. */
export interface AggregatorToolEngine {
  backend: SessionBackend;
  session: ClientSession;
  extra: Extra;
  /** The audit record of this tools/call; call_tool hands it to its target, so one call is one record. */
  audit: AuditedCall;
}

export const defineTool = toolDefiner<AggregatorToolEngine>();
