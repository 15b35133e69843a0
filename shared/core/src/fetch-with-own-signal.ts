import { setMaxListeners } from 'node:events';

/**
 * Wraps a response body so that `release` runs once the body has been read to its end, has
 * failed, or was cancelled.
 */
function releasingWhenDone(
  body: ReadableStream<Uint8Array>,
  release: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          release();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        release();
        controller.error(error);
      }
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  });
}

/**
 * `fetch` giving each request its own AbortSignal, aborted when the caller's is. The SDK's HTTP
 * client transports pass one long-lived signal to every request, and Node's fetch leaves an
 * abort listener on it per request until garbage collection: under load they pile up into
 * thousands (MaxListenersExceededWarning). Here the caller's signal holds one listener per
 * request still in flight, removed as soon as its response body is done; so many listeners
 * mean many concurrent calls, not a leak, and the warning limit is lifted. The aggregator's
 * upstream HTTP connections use it, and so do the HTTP clients of tests and benchmarks.
 */
export function fetchWithOwnSignal(base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const shared = init?.signal;
    if (!shared || shared.aborted) return base(input, init);
    setMaxListeners(0, shared);
    const own = new AbortController();
    const forward = () => own.abort(shared.reason);
    shared.addEventListener('abort', forward, { once: true });
    const release = () => shared.removeEventListener('abort', forward);
    let response: Response;
    try {
      response = await base(input, { ...init, signal: own.signal });
    } catch (error) {
      release();
      throw error;
    }
    if (!response.body) {
      release();
      return response;
    }
    return new Response(releasingWhenDone(response.body, release), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
