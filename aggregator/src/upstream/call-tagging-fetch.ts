import { CALL_TAG_HEADER, taggedParams } from './call-tag.js';

/** Whether a message is one a call's tag routes: a request, or a log message (not a response, nor other notices). */
const routedByCall = (message: { method?: unknown; id?: unknown }) =>
  typeof message?.method === 'string' &&
  (message.id !== undefined || message.method === 'notifications/message');

/** A `data:` line of an event stream, with `tag` added when it carries a message the tag routes. */
function taggedLine(line: string, tag: string): string {
  if (!line.startsWith('data:') || !line.includes('"method"')) return line;
  try {
    const message = JSON.parse(line.slice('data:'.length));
    if (!routedByCall(message)) return line;
    return `data: ${JSON.stringify({ ...message, params: taggedParams(message.params, tag) })}`;
  } catch {
    // Not one message on one line: it stays as it came, and is relayed untagged.
    return line;
  }
}

const tagLines = (text: string, tag: string) =>
  text
    .split('\n')
    .map((line) => taggedLine(line, tag))
    .join('\n');

const NEWLINE = 0x0a;

/**
 * An event stream whose requests and log messages are tagged with `tag`. Whole lines go on as they complete (a
 * message is read only once its line is whole anyway), as they came unless a line names a
 * method: only those are decoded, so a call's result passes through as bytes.
 */
function taggingRequests(tag: string): TransformStream<Uint8Array, Uint8Array> {
  let held: Buffer[] = [];
  return new TransformStream({
    transform(chunk, controller) {
      const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      const end = bytes.lastIndexOf(NEWLINE) + 1;
      if (end === 0) {
        held.push(bytes);
        return;
      }
      const lines =
        held.length > 0 ? Buffer.concat([...held, bytes.subarray(0, end)]) : bytes.subarray(0, end);
      held = end < bytes.length ? [bytes.subarray(end)] : [];
      controller.enqueue(
        lines.includes('"method"') ? Buffer.from(tagLines(lines.toString('utf8'), tag)) : lines,
      );
    },
    flush(controller) {
      if (held.length > 0)
        controller.enqueue(Buffer.from(tagLines(Buffer.concat(held).toString('utf8'), tag)));
    },
  });
}

/**
 * `fetch` for a Streamable HTTP server: a 2025 server asks its question on the response stream
 * of the POST that carried the call it belongs to, but the SDK's client transport hands it on
 * without saying which POST that was; the same goes for the log messages it sends while the call
 * runs. A POST toolmesh sent for a call names the call's tag in a header (taken off here); each
 * request and log message on its response stream gets the tag in its `_meta`.
 */
export function callTaggingFetch(base: typeof fetch): typeof fetch {
  return async (input, init) => {
    const headers = init?.headers instanceof Headers ? init.headers : undefined;
    const tag = headers?.get(CALL_TAG_HEADER);
    if (!tag) return base(input, init);
    headers?.delete(CALL_TAG_HEADER);
    const response = await base(input, init);
    if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream'))
      return response;
    return new Response(response.body.pipeThrough(taggingRequests(tag)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
