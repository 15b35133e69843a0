import { Client, isInputRequiredResult, type RequestOptions } from '@modelcontextprotocol/client';
import type {
  LoggingMessageNotification,
  ResourceUpdatedNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { packageVersion } from '@toolmesh/core';
import { z } from 'zod';
import { callTagIn, callTagOf, taggedParams, untagged } from './call-tag.js';

/** Requests a downstream server sends to "its client", relayed to a real client session. */
export type RelayedMethod = 'sampling/createMessage' | 'elicitation/create' | 'roots/list';
/**
 * `caller`: who made the call to `upstream` the request belongs to, as given to its callTool,
 * when the wire said which call that is.
 */
export type Relay = (
  upstream: string,
  method: RelayedMethod,
  params: Record<string, unknown> | undefined,
  signal: AbortSignal,
  caller: unknown,
) => Promise<Record<string, unknown>>;

export type LogMessage = LoggingMessageNotification['params'];

/** Where what a downstream server sends its client goes. */
export interface UpstreamClientHandlers {
  /** `callTag`: the tag of the call the request belongs to, when the wire said which one. */
  relay(
    method: RelayedMethod,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal,
    callTag: string | undefined,
  ): Promise<Record<string, unknown>>;
  /** Its tools, prompts or resources changed. */
  listChanged(): Promise<void>;
  /** `callTag`: the tag of the call the message was sent with, when the wire said which one. */
  log(params: LogMessage, callTag: string | undefined): void;
  resourceUpdated(params: ResourceUpdatedNotification['params']): void;
}

type InputRequests = Record<string, unknown>;

/** The SDK's client wants a result schema; this one keeps the server's answer as it is. */
const PASSTHROUGH = z.looseObject({});

/** What of the SDK's flow of a call's `input_required` rounds is used here (it does not export its type). */
interface RoundsOfCall {
  options: RequestOptions | undefined;
  retry(params: Record<string, unknown> | undefined, legOptions: RequestOptions): Promise<unknown>;
}

/** Each input request of a 2026-07-28 server's `input_required` result, tagged as part of the call `tag`. */
const taggedRequests = (requests: InputRequests | undefined, tag: string): InputRequests =>
  Object.fromEntries(
    Object.entries(requests ?? {}).map(([key, request]) => {
      const embedded = request as { params?: Record<string, unknown> } | null;
      // What is not an embedded request is left for the SDK to refuse as it is.
      return [
        key,
        embedded && typeof embedded === 'object'
          ? { ...embedded, params: taggedParams(embedded.params, tag) }
          : request,
      ];
    }),
  );

/**
 * The SDK's client, whose answers to a 2026-07-28 server's `input_required` rounds (which the
 * SDK puts through the registered handlers, as if the server had asked them) say which call
 * they are for: every round of a call toolmesh tagged is tagged the same.
 */
export class UpstreamClient extends Client {
  /**
   * The `_meta` envelope every request of a 2026-07-28 connection carries (revision, client
   * info, client capabilities), as the SDK makes it; undefined on a 2025 connection.
   */
  outboundEnvelope(): Readonly<Record<string, unknown>> | undefined {
    return this._outboundMetaEnvelope();
  }

  /** Sends `request` and gives the server's answer as it came: whoever it is passed on to judges it. */
  passOn(
    request: { method: string; params?: Record<string, unknown> },
    options: RequestOptions,
  ): Promise<unknown> {
    return this.request(request as never, PASSTHROUGH, options);
  }

  /**
   * Goes on with a tools/call sent past this client at `startedAt` whose `answer` asked for input
   * (`input_required`), as if this client had sent it: the SDK's own rounds answer the questions
   * through the registered handlers and send the call again with the answers, within the call's
   * deadline in all. The server is not asked the first time again.
   */
  continueCall(
    params: Record<string, unknown>,
    answer: Record<string, unknown>,
    options: RequestOptions,
    startedAt: number,
  ): Promise<unknown> {
    const codec = this._wireCodec();
    const decoded = codec.decodeResult('tools/call', answer);
    // An answer the codec refuses (an input_required with neither questions nor state) fails as it would have.
    if (decoded.kind === 'invalid') return Promise.reject(decoded.error);
    if (decoded.kind !== 'input_required')
      return Promise.reject(new Error(`continueCall takes an input_required answer, not ${decoded.kind}`));
    const request = { method: 'tools/call', params };
    // The flow the SDK's request funnel would have made for the call (NonCompleteResultFlow).
    const flow = {
      codec,
      request,
      resultSchema: PASSTHROUGH,
      options,
      flowStartedAt: startedAt,
      retry: (retried: Record<string, unknown> | undefined, leg: RequestOptions) =>
        this._requestWithSchema({ ...request, params: retried }, PASSTHROUGH, leg),
    };
    return this._resolveNonCompleteResult(decoded, flow);
  }

  protected override _resolveNonCompleteResult(
    decoded: { kind: 'input_required'; inputRequests: InputRequests; requestState?: string },
    flow: RoundsOfCall,
  ): Promise<unknown> {
    const tag = callTagOf(flow.options);
    if (tag === undefined) return super._resolveNonCompleteResult(decoded, flow as never);
    const tagged: RoundsOfCall = {
      ...flow,
      retry: async (params, legOptions) => {
        const result = await flow.retry(params, legOptions);
        return isInputRequiredResult(result)
          ? { ...result, inputRequests: taggedRequests(result.inputRequests, tag) }
          : result;
      },
    };
    return super._resolveNonCompleteResult(
      { ...decoded, inputRequests: taggedRequests(decoded.inputRequests, tag) },
      tagged as never,
    );
  }
}

/**
 * toolmesh's client of one downstream server, of either era: `auto` probes with
 * `server/discover` (giving up after `probeTimeoutMs`, when set) and falls back to `initialize`.
 * Sampling, elicitation and roots are relayed alike in both: a 2025 server sends them as
 * requests, a 2026-07-28 one as the `input_required` result of its call, which the client
 * answers through the same handlers and retries with the answers and the server's `requestState`.
 */
export function newUpstreamClient(
  negotiation: 'auto' | 'legacy',
  probeTimeoutMs: number | undefined,
  handlers: UpstreamClientHandlers,
): UpstreamClient {
  const client = new UpstreamClient(
    { name: 'toolmesh', version: packageVersion(import.meta.url) },
    {
      capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } },
      versionNegotiation: {
        mode: negotiation,
        ...(probeTimeoutMs && { probe: { timeoutMs: probeTimeoutMs } }),
      },
      // Every page of a list is fetched, however many: the catalogue must be whole.
      listMaxPages: 0,
    },
  );
  // The tag is read where the SDK keeps the request's `_meta` as it came, before validation.
  const relayed =
    (method: RelayedMethod) =>
    (
      request: { params?: unknown },
      ctx: { mcpReq: { signal: AbortSignal; _meta?: Record<string, unknown> | undefined } },
    ) => {
      const params = untagged(request.params as Record<string, unknown> | undefined);
      return handlers.relay(method, params, ctx.mcpReq.signal, callTagIn(ctx.mcpReq._meta)) as never;
    };
  client.setRequestHandler('sampling/createMessage', relayed('sampling/createMessage'));
  client.setRequestHandler('elicitation/create', relayed('elicitation/create'));
  client.setRequestHandler('roots/list', relayed('roots/list'));
  client.setNotificationHandler('notifications/tools/list_changed', handlers.listChanged);
  client.setNotificationHandler('notifications/prompts/list_changed', handlers.listChanged);
  client.setNotificationHandler('notifications/resources/list_changed', handlers.listChanged);
  client.setNotificationHandler('notifications/message', (notification) => {
    const params = notification.params as LogMessage;
    handlers.log(untagged(params) as LogMessage, callTagIn(params._meta));
  });
  client.setNotificationHandler('notifications/resources/updated', (notification) =>
    handlers.resourceUpdated(notification.params),
  );
  return client;
}
