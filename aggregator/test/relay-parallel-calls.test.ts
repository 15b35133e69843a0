import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { resultText, type SpawnedHttpServer } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveFixtureOverHttp, serveToolmeshHttp } from './harness.js';
import { answerText, type RoundTripAnswer, roundTripCall } from './round-trip-call.js';

// One client with several calls in flight to one server, which asks a question in each: every
// question reaches the call it belongs to, and its answer the question. The downstream servers'
// `ask_back` holds each call until all of them wait, then asks "Say <text> back" and returns the
// answer, so the calls are all in flight when the questions come.

const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));
const CALLS = 8;

let folder: string;
let server: SpawnedHttpServer;
let token: string;
let remote: ChildProcess | undefined;

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-relay-parallel-'));
  const served = await serveFixtureOverHttp('legacyhttp', '--http');
  remote = served.child;
  const config = path.join(folder, 'toolmesh.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        legacyhttp: { url: served.url },
        modern: { command: process.execPath, args: [MODERN_SERVER], env: { FIXTURE_NAME: 'modern' } },
      },
      auth: { required: true, tokens: [], requestsPerMinute: 100_000 },
    }),
  );
  ({ server, token } = await serveToolmeshHttp(config, folder));
});
afterAll(async () => {
  await server?.close();
  remote?.kill();
  rmSync(folder, { recursive: true, force: true });
});

const texts = Array.from({ length: CALLS }, (_, at) => `word-${at}`);

/** The one question of a call's `input_required` round: it must be the call's own. */
function onlyQuestionOf(answer: RoundTripAnswer): [string, string] {
  expect(answer.result?.resultType, JSON.stringify(answer)).toBe('input_required');
  const questions = Object.entries(answer.result?.inputRequests ?? {});
  expect(
    questions.map(([, question]) => question.params.message),
    'the round of a call carries its own question only',
  ).toHaveLength(1);
  const [key, question] = questions[0] as [string, { params: { message: string } }];
  return [key, question.params.message];
}

describe('a 2026-07-28 client with several calls asking at once', () => {
  for (const upstream of ['modern', 'legacyhttp']) {
    it(`gets each call's question in that call's round, from ${upstream}`, async () => {
      const tool = `${upstream}__ask_back`;
      await Promise.all(
        texts.map(async (text) => {
          const args = { text, together: CALLS };
          const first = await roundTripCall(server.url, token, tool, args);
          const [key, message] = onlyQuestionOf(first);
          expect(message).toBe(`Say ${text} back`);
          const done = await roundTripCall(server.url, token, tool, args, {
            requestState: first.result?.requestState as string,
            inputResponses: { [key]: { action: 'accept', content: { answer: text } } },
          });
          expect(answerText(done)).toBe(`accept: ${text}`);
        }),
      );
    });
  }
});

/** What a 2025 client saw on the response stream of each of its tool calls: the questions and log messages on it. */
interface CallStream {
  text: string;
  questions: string[];
  logs: unknown[];
  read: Promise<void>;
}

/**
 * A fetch that keeps, for every tools/call POST, the questions (elicitation/create requests) and
 * log messages that arrive on its response stream: which call the wire tied each one to.
 */
function recordingQuestions(streams: CallStream[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const sent = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    if (sent?.method !== 'tools/call' || !response.body) return response;
    const [kept, read] = response.body.tee();
    const stream: CallStream = {
      text: sent.params.arguments.text,
      questions: [],
      logs: [],
      read: Promise.resolve(),
    };
    stream.read = new Response(read).text().then((body) => {
      for (const line of body.split('\n')) {
        if (!line.startsWith('data: ')) continue;
        const message = JSON.parse(line.slice('data: '.length));
        if (message.method === 'elicitation/create') stream.questions.push(message.params.message);
        if (message.method === 'notifications/message') stream.logs.push(message.params.data);
      }
    });
    streams.push(stream);
    return new Response(kept, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

describe('a 2025 session with several calls asking at once', () => {
  it("gets each call's question on that call's response stream, from a server over Streamable HTTP", async () => {
    const streams: CallStream[] = [];
    const client = new Client(
      { name: 'parallel', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => ({
      action: 'accept',
      content: { answer: /^Say (\S+) back$/.exec(request.params.message)?.[1] ?? '' },
    }));
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: recordingQuestions(streams),
      }),
    );
    try {
      const results = await Promise.all(
        texts.map(
          (text) =>
            client.callTool({
              name: 'legacyhttp__ask_back',
              arguments: { text, together: CALLS },
            }) as Promise<CallToolResult>,
        ),
      );
      expect(results.map(resultText)).toEqual(texts.map((text) => `accept: ${text}`));
      await Promise.all(streams.map((stream) => stream.read));
      expect(streams.map(({ text, questions }) => ({ text, questions }))).toEqual(
        expect.arrayContaining(texts.map((text) => ({ text, questions: [`Say ${text} back`] }))),
      );
    } finally {
      await client.close();
    }
  });
});

/** A 2025 client over Streamable HTTP to toolmesh that records what each call's response stream carried. */
async function recordingClient(streams: CallStream[]): Promise<Client> {
  const client = new Client({ name: 'parallel', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: recordingQuestions(streams),
    }),
  );
  return client;
}

describe('log messages of calls in flight together', () => {
  it("reach each call's own response stream, in one session and across sessions", async () => {
    const streams: CallStream[] = [];
    const sessions = [await recordingClient(streams), await recordingClient(streams)];
    try {
      // Half the calls in each session, all in flight together when the server logs.
      const results = await Promise.all(
        texts.map(
          (text, at) =>
            sessions[at % 2]?.callTool({
              name: 'legacyhttp__log_during_call',
              arguments: { text, together: CALLS },
            }) as Promise<CallToolResult>,
        ),
      );
      expect(results.map(resultText)).toEqual(texts);
      await Promise.all(streams.map((stream) => stream.read));
      expect(streams.map(({ text, logs }) => ({ text, logs }))).toEqual(
        expect.arrayContaining(texts.map((text) => ({ text, logs: [text] }))),
      );
    } finally {
      await Promise.all(sessions.map((client) => client.close()));
    }
  });
});
