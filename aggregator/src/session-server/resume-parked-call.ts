import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { auditedTool, auditedToolCall, endedWith, settledCall } from './audited-tool-call.js';
import type { Extra } from './call-channel.js';
import { abandon, nextRound } from './parkable-call.js';
import type { ClientSession } from './session.js';
import type { SessionBackend } from './session-backend.js';

/** Whether a 2026-07-28 request is the retry of a call parked for its server's question. */
export function resumesParkedCall(backend: SessionBackend, session: ClientSession): boolean {
  const requestState = session.roundTrip?.requestState;
  if (requestState === undefined) return false;
  const opened = backend.requestStateSeal.open(requestState);
  return 'state' in opened && opened.state.kind === 'relay';
}

/**
 * The retry of a parked call: its answers go to the questions of the server, and the call goes
 * on in this request until its result or the next question. The state it sends back is checked
 * first: sealed by toolmesh, of this caller, for this tool and these arguments, of the round
 * the call waits for, not expired, and of a call this process holds. A refused retry is
 * audited with why; the parked call's own record is written when it ends.
 */
export async function resumeParkedCall(
  backend: SessionBackend,
  session: ClientSession,
  extra: Extra,
): Promise<CallToolResult> {
  const roundTrip = session.roundTrip;
  const called = roundTrip?.call;
  if (!roundTrip || !called) throw new Error('only a 2026-07-28 tools/call resumes a parked call');
  const refused = (why: string) =>
    auditedToolCall(backend, session, async (audit) => {
      // toolmesh's own tools (call_tool) are not in the registry: the policy judges them by name.
      const entry = backend.registry.tool(called.name) ?? {
        exposed: called.name,
        tool: { name: called.name, inputSchema: { type: 'object' as const } },
      };
      const decision = backend.policy.decide(session.mode, entry);
      audit.decided(
        auditedTool(session, called.name, 'server' in entry ? entry.server : 'toolmesh', called.arguments),
        decision.verdict,
        decision.rule,
      );
      return endedWith(
        audit,
        'refused',
        `${called.name} was not resumed: ${why}. Call it again without requestState to start it anew.`,
      );
    });
  const checked = backend.requestStateSeal.check(roundTrip.requestState, 'relay', {
    principal: session.id,
    tool: called.name,
    arguments: called.arguments,
  });
  if ('problem' in checked) return refused(checked.problem);
  const { state } = checked;
  const { parkedCalls } = backend;
  if (state.replica !== parkedCalls.replica)
    return refused(
      'the call was cut off: the toolmesh process that held it while its server waited for the answer is gone (it restarted) or is another replica',
    );
  const taken = parkedCalls.take(state.call, state.round);
  if (state.expiresAt <= Date.now()) {
    // The timer that cancels it may not have run yet: the call ends now, as its state did.
    if ('call' in taken) void abandon(backend, taken.call);
    return refused(
      `the request state expired at ${new Date(state.expiresAt).toISOString()}, and the call with it`,
    );
  }
  if ('problem' in taken)
    return refused(
      taken.problem === 'stale'
        ? 'the request state was used already: the call has gone on to a later question'
        : 'the request state was used already, or the call it belongs to has ended: a state resumes one round once',
    );
  const parked = taken.call;
  parked.facts.session.lastActive = Date.now();
  parked.bind(extra);
  parked.answer(roundTrip.inputResponses);
  return settledCall(backend, parked.facts.audit, () => nextRound(backend, parked));
}
