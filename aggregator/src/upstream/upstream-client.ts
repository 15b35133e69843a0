import { Client } from '@modelcontextprotocol/client';
import type {
  LoggingMessageNotification,
  ResourceUpdatedNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { packageVersion } from '@toolmesh/core';

/** Requests a downstream server sends to "its client", relayed to a real client session. */
export type RelayedMethod = 'sampling/createMessage' | 'elicitation/create' | 'roots/list';
export type Relay = (
  upstream: string,
  method: RelayedMethod,
  params: Record<string, unknown> | undefined,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

export type LogMessage = LoggingMessageNotification['params'];

/** Where what a downstream server sends its client goes. */
export interface UpstreamClientHandlers {
  relay(
    method: RelayedMethod,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>>;
  /** Its tools, prompts or resources changed. */
  listChanged(): Promise<void>;
  log(params: LogMessage): void;
  resourceUpdated(params: ResourceUpdatedNotification['params']): void;
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
): Client {
  const client = new Client(
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
  const relayed =
    (method: RelayedMethod) => (request: { params?: unknown }, ctx: { mcpReq: { signal: AbortSignal } }) =>
      handlers.relay(
        method,
        request.params as Record<string, unknown> | undefined,
        ctx.mcpReq.signal,
      ) as never;
  client.setRequestHandler('sampling/createMessage', relayed('sampling/createMessage'));
  client.setRequestHandler('elicitation/create', relayed('elicitation/create'));
  client.setRequestHandler('roots/list', relayed('roots/list'));
  client.setNotificationHandler('notifications/tools/list_changed', handlers.listChanged);
  client.setNotificationHandler('notifications/prompts/list_changed', handlers.listChanged);
  client.setNotificationHandler('notifications/resources/list_changed', handlers.listChanged);
  client.setNotificationHandler('notifications/message', (notification) => handlers.log(notification.params));
  client.setNotificationHandler('notifications/resources/updated', (notification) =>
    handlers.resourceUpdated(notification.params),
  );
  return client;
}
