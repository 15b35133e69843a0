import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type InputRequiredResult, inputRequired } from '@modelcontextprotocol/server';
import type { AuditedCall } from '../audit/audited-call.js';
import { ErrorCode, McpError } from '../upstream/legacy-error.js';
import { endedWith, parkedRound, settledCall } from './audited-tool-call.js';
import { CallChannel, type Extra } from './call-channel.js';
import { ParkedCall } from './parked-call.js';
import { MAX_PARKED_CALLS } from './parked-calls.js';
import type { ClientSession } from './session.js';
import type { SessionBackend } from './session-backend.js';

/** How a 2026-07-28 call reaches its server: through `channel`, cancelled by `signal`. */
export type RunDownstream = (channel: CallChannel, signal: AbortSignal) => Promise<CallToolResult>;

/**
 * A 2026-07-28 client's call to a server that may ask its client something as part of it. It
 * runs as it would for a 2025 client, until the server asks: then the call is parked here and
 * its answer is `input_required` carrying the question, with a sealed state naming the parked
 * call, the round, this process, the caller, the tool, the arguments and until when it waits.
 * The client's retry resumes it (see resumeParkedCall).
 */
export function parkableCall(
  backend: SessionBackend,
  session: ClientSession,
  exposed: string,
  args: Record<string, unknown>,
  extra: Extra,
  audit: AuditedCall,
  run: RunDownstream,
): Promise<CallToolResult> {
  const roundTrip = session.roundTrip;
  if (!roundTrip) throw new Error('only a 2026-07-28 request has calls that can be parked');
  // A state the call did not come with from an approval is one toolmesh did not issue for it:
  // it is refused rather than ignored, so no altered state passes for a fresh call.
  if (roundTrip.requestState !== undefined) {
    const opened = backend.requestStateSeal.open(roundTrip.requestState);
    if ('problem' in opened)
      return Promise.resolve(
        endedWith(
          audit,
          'refused',
          `${exposed} did not run: ${opened.problem}. Call it again without requestState.`,
        ),
      );
  }
  const called = roundTrip.call ?? { name: exposed, arguments: args };
  const parked = new ParkedCall(
    { principal: session.id, tool: called.name, arguments: called.arguments, session, audit },
    extra,
    (active) => new CallChannel(extra, active),
  );
  parked.start((signal) => run(parked.channel, signal));
  return nextRound(backend, parked);
}

/**
 * Goes on with a call in the round of the request bound to it: its result, or its server's next
 * questions put to the client with the call parked again. When this process holds as many
 * parked calls as it may, the server is told its question cannot be put now.
 */
export async function nextRound(backend: SessionBackend, parked: ParkedCall): Promise<CallToolResult> {
  try {
    for (;;) {
      const end = await parked.next();
      if ('result' in end) return end.result;
      const expiresAt = backend.parkedCalls.hold(parked, (expired) => void abandon(backend, expired));
      if (expiresAt === undefined) {
        parked.refuse(
          end.keys,
          new McpError(
            ErrorCode.InternalError,
            `toolmesh already holds ${MAX_PARKED_CALLS} calls waiting for their clients' answers, so this request cannot be put to the client now; retry the call later.`,
          ),
        );
        continue;
      }
      await parked.channel.flushed();
      const { facts } = parked;
      const seal = backend.requestStateSeal;
      const requestState = seal.seal({
        kind: 'relay',
        call: parked.id,
        round: parked.round,
        replica: backend.parkedCalls.replica,
        principal: facts.principal,
        tool: facts.tool,
        digest: seal.digest(facts.arguments),
        expiresAt,
      });
      const inputRequests = Object.fromEntries(end.keys.map((key, at) => [key, end.questions[at]]));
      return parkedRound(
        inputRequired({
          inputRequests: inputRequests as InputRequiredResult['inputRequests'],
          requestState,
        }),
      );
    }
  } finally {
    parked.unbind();
  }
}

/** Ends a parked call its client did not come back for: cancelled at its server, and audited so. */
export async function abandon(
  backend: Pick<SessionBackend, 'audit' | 'callObservers' | 'log' | 'config'>,
  parked: ParkedCall,
  why = `its client did not come back with an answer within ${Math.round(backend.config.approvalTimeoutMs / 1000)} s`,
): Promise<void> {
  const { audit, tool } = parked.facts;
  const message = `${tool} was cancelled: ${why}.`;
  audit.ended('cancelled', message);
  parked.cancel(message);
  backend.log.info(`parked call ${parked.id} of ${tool} cancelled: ${why}`);
  await settledCall(backend, audit, () => parked.settled()).catch(() => undefined);
}
