import { MODERN_REVISION } from '@toolmesh/core/testing';
import { expect } from 'vitest';

/** A 2026-07-28 tools/call answer as it travels: a result, input_required, or an error. */
export interface RoundTripAnswer {
  result?: {
    resultType?: string;
    inputRequests?: Record<string, { method: string; params: { message: string } & Record<string, unknown> }>;
    requestState?: string;
    isError?: boolean;
    content?: { type: string; text: string }[];
    structuredContent?: Record<string, unknown>;
  };
  error?: { message: string };
}

/** What a retry carries back. */
export interface Retry {
  requestState?: string;
  inputResponses?: Record<string, unknown>;
}

let ids = 0;

/**
 * One 2026-07-28 tools/call over HTTP, by hand, as a client that declares `capabilities` (forms
 * by default): no session, everything in the request; a retry brings `requestState` and answers.
 */
export async function roundTripCall(
  url: string,
  bearer: string,
  name: string,
  args: Record<string, unknown>,
  retry: Retry = {},
  capabilities: Record<string, unknown> = { elicitation: { form: {} } },
): Promise<RoundTripAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN_REVISION,
      'mcp-method': 'tools/call',
      'mcp-name': name,
      authorization: `Bearer ${bearer}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++ids,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        ...retry,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
          'io.modelcontextprotocol/clientInfo': { name: 'toolmesh-test', version: '0.0.0' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
  });
  expect(response.headers.get('mcp-session-id')).toBeNull();
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('text/event-stream')) return (await response.json()) as RoundTripAnswer;
  // An answer on an event stream: the last message that answers the request.
  const messages = (await response.text())
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as RoundTripAnswer & { id?: number });
  return messages.filter((message) => message.id !== undefined).at(-1) as RoundTripAnswer;
}

/** The text of a tool result. */
export const answerText = (answer: RoundTripAnswer) =>
  answer.result?.content?.map((block) => block.text).join('\n') ?? '';
