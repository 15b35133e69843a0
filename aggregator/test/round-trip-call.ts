import { modernRequest } from '@toolmesh/core/testing';
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
  const answer = await modernRequest<RoundTripAnswer>(url, {
    id: ++ids,
    method: 'tools/call',
    params: { name, arguments: args, ...retry },
    token: bearer,
    capabilities,
  });
  expect(answer.session).toBeNull();
  return answer.body;
}

/** The text of a tool result. */
export const answerText = (answer: RoundTripAnswer) =>
  answer.result?.content?.map((block) => block.text).join('\n') ?? '';
