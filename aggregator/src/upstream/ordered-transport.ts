import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import type { DirectCalls } from './direct-calls.js';

function isResponse(message: JSONRPCMessage): boolean {
  return 'id' in message && !('method' in message);
}

/**
 * What the SDK's client reads off a transport beyond the Transport interface: whether it is a
 * stdio one (`stderr` and `pid`, which decide how a silent `server/discover` probe is judged), and
 * whether each request has a response stream of its own (Streamable HTTP).
 */
const SHAPE_KEYS = ['stderr', 'pid', 'hasPerRequestStream'] as const;

/**
 * The SDK client handles a notification a microtask after it arrives but a response at once, so
 * the last progress notification of a call, arriving with the result, is dropped as "unknown
 * token". Holding each response back by two microtasks lets the notifications before it land first.
 * What belongs to a call sent past the SDK (`direct`) goes there instead, and is failed when the
 * transport closes.
 */
export function deliverInOrder(inner: Transport, direct?: DirectCalls): Transport {
  let handler: Transport['onmessage'];
  let closeHandler: Transport['onclose'];
  const outer: Transport = {
    start: () => inner.start(),
    send: (message, options) => inner.send(message, options),
    close: () => inner.close(),
    get sessionId() {
      return inner.sessionId;
    },
    setProtocolVersion: (version) => inner.setProtocolVersion?.(version),
    setSupportedProtocolVersions: (versions) => inner.setSupportedProtocolVersions?.(versions),
    get onmessage() {
      return handler;
    },
    set onmessage(next) {
      handler = next;
      inner.onmessage = next
        ? (message, extra) => {
            if (direct?.took(message)) return;
            if (!isResponse(message)) return next(message, extra);
            queueMicrotask(() => queueMicrotask(() => next(message, extra)));
          }
        : undefined;
    },
    get onclose() {
      return closeHandler;
    },
    set onclose(next) {
      closeHandler = next;
      inner.onclose = direct
        ? () => {
            next?.();
            direct.closed();
          }
        : next;
    },
    get onerror() {
      return inner.onerror;
    },
    set onerror(next) {
      inner.onerror = next;
    },
  };
  for (const key of SHAPE_KEYS) {
    if (key in inner)
      Object.defineProperty(outer, key, { get: () => (inner as unknown as Record<string, unknown>)[key] });
  }
  return outer;
}
