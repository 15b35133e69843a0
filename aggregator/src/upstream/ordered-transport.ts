import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

function isResponse(message: JSONRPCMessage): boolean {
  return 'id' in message && !('method' in message);
}

/**
 * The SDK client handles a notification a microtask after it arrives but a response at once, so
 * the last progress notification of a call, arriving with the result, is dropped as "unknown
 * token". Holding each response back by two microtasks lets the notifications before it land first.
 */
export function deliverInOrder(inner: Transport): Transport {
  let handler: Transport['onmessage'];
  const outer: Transport = {
    start: () => inner.start(),
    send: (message, options) => inner.send(message, options),
    close: () => inner.close(),
    get sessionId() {
      return inner.sessionId;
    },
    setProtocolVersion: (version) => inner.setProtocolVersion?.(version),
    get onmessage() {
      return handler;
    },
    set onmessage(next) {
      handler = next;
      inner.onmessage = next
        ? (message, extra) => {
            if (!isResponse(message)) return next(message, extra);
            queueMicrotask(() => queueMicrotask(() => next(message, extra)));
          }
        : undefined;
    },
    get onclose() {
      return inner.onclose;
    },
    set onclose(next) {
      inner.onclose = next;
    },
    get onerror() {
      return inner.onerror;
    },
    set onerror(next) {
      inner.onerror = next;
    },
  };
  return outer;
}
