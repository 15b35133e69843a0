import type { JSONRPCMessage, RequestOptions, Transport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from './legacy-error.js';

type Progress = Parameters<NonNullable<RequestOptions['onprogress']>>[0];

/** A call sent, until its answer, its cancellation, its deadline or the connection's end. */
interface Pending {
  settle(outcome: { result: CallToolResult } | { error: unknown }): void;
  progressed(progress: Progress): void;
}

/** The ids of calls sent here are strings, so they never meet those the SDK's client numbers. */
const ID_PREFIX = 'toolmesh-';

const timedOut = (data?: Record<string, unknown>) =>
  new McpError(ErrorCode.RequestTimeout, 'Request timed out', data);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The tools/call requests of one connection to a 2025 stdio server, sent and answered past the
 * SDK's client: its request funnel runs the JSON-RPC schemas over each message in and the
 * result schema over each answer, which a proxied call does not need, as the client judges the
 * result. The rest of the SDK's bargain is kept: progress (restarting the deadline when asked),
 * cancellation sent to the server when the caller gives up or the deadline passes, errors said
 * as the 2025 SDK said them, and every call failed when the connection ends. What the server
 * asks its client, and everything else it sends, still goes to the SDK's client.
 */
export class DirectCalls {
  readonly #pending = new Map<string, Pending>();
  #sent = 0;

  constructor(private readonly transport: Pick<Transport, 'send'>) {}

  /**
   * Whether `message` is the answer to, or progress of, a call sent here: then it is handled, as
   * late as the SDK's client would have handled it (see deliverInOrder), and nobody else sees it.
   */
  took(message: JSONRPCMessage): boolean {
    if (!('method' in message)) {
      const pending = typeof message.id === 'string' ? this.#pending.get(message.id) : undefined;
      if (!pending) return false;
      queueMicrotask(() => queueMicrotask(() => pending.settle(answerOf(message))));
      return true;
    }
    if (message.method !== 'notifications/progress' || !isPlainObject(message.params)) return false;
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

  /** Calls `name` with the caller's signal, deadline and progress handler, as the SDK's client would. */
  call(
    name: string,
    args: Record<string, unknown> | undefined,
    meta: Record<string, unknown> | undefined,
    { signal, timeout, resetTimeoutOnProgress, maxTotalTimeout, onprogress }: RequestOptions,
  ): Promise<CallToolResult> {
    if (signal?.aborted) return Promise.reject(timedOut());
    const id = `${ID_PREFIX}${++this.#sent}`;
    const params: Record<string, unknown> = { name };
    if (args) params.arguments = args;
    if (meta || onprogress) params._meta = onprogress ? { ...meta, progressToken: id } : meta;
    return new Promise<CallToolResult>((resolve, reject) => {
      const deadline = timeout ?? 60_000;
      const startedAt = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const settle: Pending['settle'] = (outcome) => {
        if (!this.#pending.delete(id)) return;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if ('result' in outcome) resolve(outcome.result);
        else reject(outcome.error);
      };
      const cancel = (error: McpError, reason: string) => {
        if (!this.#pending.has(id)) return;
        settle({ error });
        this.transport
          .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } })
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
function answerOf(message: JSONRPCMessage): { result: CallToolResult } | { error: McpError } {
  if ('error' in message) {
    const { code, message: text, data } = message.error;
    return { error: new McpError(code, text, data) };
  }
  const { result } = message as { result: Record<string, unknown> };
  if (!('resultType' in result)) return { result: result as CallToolResult };
  const { resultType: _resultType, ...rest } = result;
  return { result: rest as CallToolResult };
}
