import type { JSONRPCMessage, RequestOptions, Transport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from '../config/is-record.js';
import { ErrorCode, McpError } from './legacy-error.js';

type Progress = Parameters<NonNullable<RequestOptions['onprogress']>>[0];

/**
 * How a call ended here: its result, its error, or, from a 2026-07-28 server, an answer asking
 * for input (`input_required`), which the SDK's client is to go on with.
 */
type Outcome = { result: CallToolResult } | { error: unknown } | { inputRequired: Record<string, unknown> };

/** Goes on with a call whose first answer, sent at `startedAt`, asked for input. */
export type ContinueCall = (answer: Record<string, unknown>, startedAt: number) => Promise<unknown>;

/** A call sent, until its answer, its cancellation, its deadline or the connection's end. */
interface Pending {
  settle(outcome: Outcome): void;
  progressed(progress: Progress): void;
}

/** The ids of calls sent here have a prefix of their own, so they never meet those the SDK's client makes. */
const ID_PREFIX = 'toolmesh-';

const timedOut = (data?: Record<string, unknown>) =>
  new McpError(ErrorCode.RequestTimeout, 'Request timed out', data);

/**
 * The tools/call requests of one connection to a stdio server, sent and answered past the SDK's
 * client: its request funnel runs the JSON-RPC schemas over each message in, its era codec and
 * the result schema over each answer, which a proxied call does not need, as the client judges
 * the result. The rest of the SDK's bargain is kept: progress (restarting the deadline when
 * asked), cancellation sent to the server when the caller gives up or the deadline passes,
 * errors said as the 2025 SDK said them, and every call failed when the connection ends. What
 * the server asks its client, and everything else it sends, still goes to the SDK's client.
 *
 * To a 2026-07-28 server (once `speakModern` is told the envelope) every message carries the
 * client's `_meta` envelope, as the SDK's client sends it, and an answer must say its
 * `resultType`: a `complete` one is the result, an `input_required` one goes to the caller's
 * `continueCall`, which hands it to the SDK's client for the rounds that answer its questions.
 */
export class DirectCalls {
  readonly #pending = new Map<string, Pending>();
  #sent = 0;
  #envelope: Readonly<Record<string, unknown>> | undefined;

  constructor(private readonly transport: Pick<Transport, 'send'>) {}

  /** The server speaks 2026-07-28: every message sent carries `envelope` in its `_meta`. */
  speakModern(envelope: Readonly<Record<string, unknown>>): void {
    this.#envelope = envelope;
  }

  /**
   * Whether `message` is the answer to, or progress of, a call sent here: then it is handled, as
   * late as the SDK's client would have handled it (see deliverInOrder), and nobody else sees it.
   */
  took(message: JSONRPCMessage): boolean {
    if (!('method' in message)) {
      const pending = typeof message.id === 'string' ? this.#pending.get(message.id) : undefined;
      if (!pending) return false;
      const outcome = this.#envelope ? modernAnswerOf(message) : answerOf(message);
      queueMicrotask(() => queueMicrotask(() => pending.settle(outcome)));
      return true;
    }
    if (message.method !== 'notifications/progress' || !isRecord(message.params)) return false;
    const { progressToken, ...progress } = message.params;
    const pending = typeof progressToken === 'string' ? this.#pending.get(progressToken) : undefined;
    if (!pending) return false;
    // As the SDK's client drops a progress notification its schema refuses.
    if (typeof progress.progress === 'number') queueMicrotask(() => pending.progressed(progress as Progress));
    return true;
  }

  /** The connection ended: every call still waiting fails as a lost connection. */
  closed(): void {
    for (const pending of this.#pending.values())
      pending.settle({ error: new McpError(ErrorCode.ConnectionClosed, 'Connection closed') });
  }

  /**
   * Calls `name` with the caller's signal, deadline and progress handler, as the SDK's client
   * would; `continueCall` goes on with it when the server asks for input.
   */
  call(
    name: string,
    args: Record<string, unknown> | undefined,
    meta: Record<string, unknown> | undefined,
    { signal, timeout, resetTimeoutOnProgress, maxTotalTimeout, onprogress }: RequestOptions,
    continueCall: ContinueCall,
  ): Promise<unknown> {
    if (signal?.aborted) return Promise.reject(timedOut());
    const id = `${ID_PREFIX}${++this.#sent}`;
    const params: Record<string, unknown> = { name };
    if (args) params.arguments = args;
    const ownMeta = onprogress ? { ...meta, progressToken: id } : meta;
    // As the SDK's client merges them: what the call says wins over the envelope.
    if (this.#envelope) params._meta = { ...this.#envelope, ...ownMeta };
    else if (ownMeta) params._meta = ownMeta;
    return new Promise<unknown>((resolve, reject) => {
      const deadline = timeout ?? 60_000;
      const startedAt = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const settle: Pending['settle'] = (outcome) => {
        if (!this.#pending.delete(id)) return;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if ('result' in outcome) resolve(outcome.result);
        else if ('error' in outcome) reject(outcome.error);
        else resolve(continueCall(outcome.inputRequired, startedAt));
      };
      const cancel = (error: McpError, reason: string) => {
        if (!this.#pending.has(id)) return;
        settle({ error });
        const params = { requestId: id, reason, ...(this.#envelope && { _meta: this.#envelope }) };
        this.transport
          .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params })
          .catch(() => undefined);
      };
      const onTimeout = () => cancel(timedOut({ timeout: deadline }), 'Request timed out');
      function onAbort() {
        cancel(timedOut(), String(signal?.reason));
      }
      this.#pending.set(id, {
        settle,
        progressed: (progress) => {
          if (resetTimeoutOnProgress) {
            const totalElapsed = Date.now() - startedAt;
            if (maxTotalTimeout && totalElapsed >= maxTotalTimeout)
              return cancel(timedOut({ maxTotalTimeout, totalElapsed }), 'Maximum total timeout exceeded');
            clearTimeout(timer);
            timer = setTimeout(onTimeout, deadline);
          }
          onprogress?.(progress);
        },
      });
      timer = setTimeout(onTimeout, deadline);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.transport
        .send({ jsonrpc: '2.0', id, method: 'tools/call', params })
        .catch((error: unknown) => settle({ error }));
    });
  }
}

/** A response's outcome as the 2025 SDK gave it: the result, without a `resultType`, or its error. */
function answerOf(message: JSONRPCMessage): Outcome {
  if ('error' in message) {
    // A hosted server's messages reach here unchecked by the JSON-RPC schema.
    if (!isRecord(message.error))
      return { error: new Error('its server answered the call with a malformed error') };
    const { code, message: text, data } = message.error;
    return { error: new McpError(code, text, data) };
  }
  const { result } = message as { result: Record<string, unknown> };
  if (!('resultType' in result)) return { result: result as CallToolResult };
  const { resultType: _resultType, ...rest } = result;
  return { result: rest as CallToolResult };
}

/**
 * A 2026-07-28 server's answer, judged as the SDK's client judges it: a result must say its
 * `resultType`, as that revision requires; one the client cannot take fails the call.
 */
function modernAnswerOf(message: JSONRPCMessage): Outcome {
  if ('error' in message) return answerOf(message);
  const { result } = message as { result: unknown };
  if (!isRecord(result))
    return { error: new Error('its server answered the call with a result that is not an object') };
  const { resultType } = result;
  if (resultType === 'complete') return answerOf(message);
  if (resultType === 'input_required') return { inputRequired: result };
  const said = resultType === undefined ? 'no resultType' : `resultType ${JSON.stringify(resultType)}`;
  return {
    error: new Error(
      `its server answered the call with ${said}, where a 2026-07-28 server must say "complete" or "input_required"`,
    ),
  };
}
