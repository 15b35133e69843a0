import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { resultText } from '@toolmesh/core/testing';

/** Longer than any call on the fixture takes; a call past it counts as a hang. */
export const CALL_LIMIT_MS = 30_000;

/** A JavaScript stack frame: `    at fn (file:///x.js:1:2)`. */
const STACK_FRAME = /^\s+at .+(:\d+:\d+\)?|\(native\)|<anonymous>\)?)$/m;

/** What an answer must never be: empty, a stack trace, a dump of schema issues, or a handler's unexpected failure. */
export function badMessage(text: string): string | undefined {
  if (text.trim() === '') return 'an empty message';
  if (STACK_FRAME.test(text)) return `a stack trace: ${text.slice(0, 400)}`;
  if (/^\s*[[{]/.test(text)) return `a JSON dump: ${text.slice(0, 400)}`;
  if (/failed unexpectedly/.test(text)) return `an unexpected failure: ${text.slice(0, 400)}`;
  return undefined;
}

export interface CallOutcome {
  answer: 'result' | 'error result' | 'JSON-RPC error' | 'none';
  /** What was wrong with it; undefined when it was fine. */
  problem?: string;
  result?: CallToolResult;
  /** The error's message, for the call log. */
  message?: string;
}

/**
 * Calls a tool and says how it answered and what was wrong with that: it must be a result (an
 * error result with a message that helps) or a JSON-RPC error, never a hang or a lost connection.
 */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<CallOutcome> {
  let result: CallToolResult;
  try {
    result = (await client.callTool({ name, arguments: args }, undefined, {
      timeout: CALL_LIMIT_MS,
    })) as CallToolResult;
  } catch (error) {
    if (!(error instanceof McpError)) return { answer: 'none', problem: `the client threw ${String(error)}` };
    if (error.code === ErrorCode.RequestTimeout)
      return { answer: 'none', problem: `no answer within ${CALL_LIMIT_MS} ms` };
    if (error.code === ErrorCode.ConnectionClosed) return { answer: 'none', problem: CONNECTION_CLOSED };
    const problem = badMessage(error.message);
    return {
      answer: 'JSON-RPC error',
      message: error.message,
      ...(problem && { problem: `a JSON-RPC error with ${problem}` }),
    };
  }
  if (!result.isError) return { answer: 'result', result };
  const message = resultText(result);
  const problem = badMessage(message);
  return { answer: 'error result', message, ...(problem && { problem: `an error result with ${problem}` }) };
}

export const CONNECTION_CLOSED = 'the connection closed';

/** Arguments as a failure report shows them: long strings shortened so the report stays readable. */
export function showArguments(args: unknown): string {
  return JSON.stringify(args, (_key, value) =>
    typeof value === 'string' && value.length > 120 ? `${value.slice(0, 60)}…(${value.length} chars)` : value,
  );
}
