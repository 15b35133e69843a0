import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type CallToolResult,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  connectHttpClient,
  connectModernHttpClient,
  MODERN_REVISION,
  resultText,
  type SpawnedHttpServer,
} from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PARKED_CALLS } from '../src/session-server/parked-calls.js';
import { fixture, serveToolmeshHttp } from './harness.js';
import { answerText, type RoundTripAnswer, roundTripCall } from './round-trip-call.js';

// The questions a downstream server puts to its client during a call, beyond one elicitation:
// roots, several questions at once, and more calls waiting for their clients than toolmesh
// holds. A real `toolmesh serve` over HTTP in front of a 2025 server (v1 SDK, it asks by
// request) and a 2026-07-28-only one (v2 server package, it answers input_required), called by
// v1 clients in a 2025 session, v2 clients pinned to 2026-07-28, and by hand.

const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));

let folder: string;
let server: SpawnedHttpServer;
let token: string;

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-relay-questions-'));
  const config = path.join(folder, 'toolmesh.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        legacy: fixture('legacy'),
        modern: { command: process.execPath, args: [MODERN_SERVER], env: { FIXTURE_NAME: 'modern' } },
      },
      // The cap is filled on a busy machine: no parked call may time out meanwhile, and the
      // hundreds of requests it takes are not to be rate-limited.
      approvalTimeoutMs: 600_000,
      callTimeoutMs: 600_000,
      auth: { required: true, tokens: [], requestsPerMinute: 100_000 },
    }),
  );
  ({ server, token } = await serveToolmeshHttp(config, folder));
});
afterAll(async () => {
  await server?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** The input requests of an `input_required` answer, by key. */
function questionsOf(answer: RoundTripAnswer) {
  expect(answer.result?.resultType, JSON.stringify(answer)).toBe('input_required');
  return Object.entries(answer.result?.inputRequests ?? {});
}

/**
 * Why a call could not go on: a 2025 server is told and reports it in its error result; a
 * 2026-07-28 server cannot be told (its question was a result), so the call ends with the error.
 */
async function failureOf(call: Promise<CallToolResult>): Promise<string> {
  const outcome = await call.catch((error: Error) => error);
  if (outcome instanceof Error) return outcome.message;
  expect(outcome.isError, resultText(outcome)).toBe(true);
  return resultText(outcome);
}

const rootsOf = (who: string) => ({ roots: [{ uri: `file:///home/${who}` }] });
const answered = (answer: string) => ({ action: 'accept' as const, content: { answer } });
/** What a person answers each of the two questions of `ask_twice`. */
const ANSWERS: Record<string, string> = { 'First question?': 'one', 'Second question?': 'two' };

describe('roots asked during a call', () => {
  it('reach a 2025 client as a request and a 2026-07-28 client that declares roots as a round trip', async () => {
    const legacy = await connectHttpClient(server.url, { token, capabilities: { roots: {} } });
    legacy.client.setRequestHandler(ListRootsRequestSchema, async () => rootsOf('legacy'));
    const modern = await connectModernHttpClient(server.url, { token, capabilities: { roots: {} } });
    modern.client.setRequestHandler('roots/list', async () => rootsOf('modern'));
    try {
      for (const upstream of ['legacy', 'modern']) {
        expect(resultText(await legacy.call(`${upstream}__client_roots`))).toBe('file:///home/legacy');
        expect(resultText(await modern.call(`${upstream}__client_roots`))).toBe('file:///home/modern');
      }
    } finally {
      await legacy.close();
      await modern.close();
    }

    // By hand: the server's roots/list is the round's one input request, the answer its result.
    const first = await roundTripCall(server.url, token, 'legacy__client_roots', {}, {}, { roots: {} });
    const [[key, question] = []] = questionsOf(first);
    expect(question?.method).toBe('roots/list');
    const done = await roundTripCall(
      server.url,
      token,
      'legacy__client_roots',
      {},
      {
        requestState: first.result?.requestState as string,
        inputResponses: { [key as string]: rootsOf('by-hand') },
      },
      { roots: {} },
    );
    expect(answerText(done)).toBe('file:///home/by-hand');
  });

  it('are refused, saying why, to a client that cannot be asked for them', async () => {
    const modern = await connectModernHttpClient(server.url, {
      token,
      capabilities: { elicitation: { form: {} } },
    });
    const legacy = await connectHttpClient(server.url, { token });
    try {
      for (const upstream of ['legacy', 'modern']) {
        expect(await failureOf(modern.call(`${upstream}__client_roots`))).toMatch(
          new RegExp(`speaks MCP ${MODERN_REVISION} and its request does not declare roots`),
        );
        expect(await failureOf(legacy.call(`${upstream}__client_roots`))).toMatch(/does not support roots/);
      }
    } finally {
      await modern.close();
      await legacy.close();
    }
  });
});

describe('several questions of one call', () => {
  it('from a 2026-07-28 server travel in one round and are answered together', async () => {
    const first = await roundTripCall(server.url, token, 'modern__ask_twice', {});
    const questions = questionsOf(first);
    expect(questions.map(([, question]) => question.params.message).sort()).toEqual([
      'First question?',
      'Second question?',
    ]);
    const done = await roundTripCall(
      server.url,
      token,
      'modern__ask_twice',
      {},
      {
        requestState: first.result?.requestState as string,
        inputResponses: Object.fromEntries(
          questions.map(([key, question]) => [key, answered(ANSWERS[question.params.message] as string)]),
        ),
      },
    );
    expect(answerText(done)).toBe('accept: one; accept: two');
  });

  it('are asked again when a retry leaves one unanswered', async () => {
    const first = await roundTripCall(server.url, token, 'modern__ask_twice', {});
    const [[firstKey, firstQuestion] = [], [secondKey, secondQuestion] = []] = questionsOf(first);
    const partly = await roundTripCall(
      server.url,
      token,
      'modern__ask_twice',
      {},
      {
        requestState: first.result?.requestState as string,
        inputResponses: {
          [firstKey as string]: answered(ANSWERS[firstQuestion?.params.message ?? ''] as string),
        },
      },
    );
    const again = questionsOf(partly);
    expect(again.map(([key, question]) => [key, question.params.message])).toEqual([
      [secondKey, secondQuestion?.params.message],
    ]);
    const done = await roundTripCall(
      server.url,
      token,
      'modern__ask_twice',
      {},
      {
        requestState: partly.result?.requestState as string,
        inputResponses: {
          [secondKey as string]: answered(ANSWERS[secondQuestion?.params.message ?? ''] as string),
        },
      },
    );
    expect(answerText(done)).toBe('accept: one; accept: two');
  });

  it('from a 2025 server asking twice at once each reach the caller and get their own answer', async () => {
    // By hand: whatever rounds the two questions come in, each is put once and answered once.
    let answer: RoundTripAnswer = await roundTripCall(server.url, token, 'legacy__ask_twice', {});
    const asked: string[] = [];
    for (let round = 0; answer.result?.resultType === 'input_required'; round++) {
      expect(round, 'more rounds than questions').toBeLessThan(2);
      const questions = questionsOf(answer);
      asked.push(...questions.map(([, question]) => question.params.message));
      answer = await roundTripCall(
        server.url,
        token,
        'legacy__ask_twice',
        {},
        {
          requestState: answer.result?.requestState as string,
          inputResponses: Object.fromEntries(
            questions.map(([key, question]) => [key, answered(ANSWERS[question.params.message] as string)]),
          ),
        },
      );
    }
    expect(asked.sort()).toEqual(['First question?', 'Second question?']);
    expect(answerText(answer)).toBe('accept: one; accept: two');

    // The SDKs' own clients, of either era, in front of either server.
    const forms = { capabilities: { elicitation: { form: {} } } };
    const modern = await connectModernHttpClient(server.url, { token, ...forms });
    modern.client.setRequestHandler('elicitation/create', async (request) =>
      answered(ANSWERS[request.params.message] ?? '?'),
    );
    const legacy = await connectHttpClient(server.url, { token, ...forms });
    legacy.client.setRequestHandler(ElicitRequestSchema, async (request) =>
      answered(ANSWERS[request.params.message] ?? '?'),
    );
    try {
      for (const upstream of ['legacy', 'modern']) {
        expect(resultText(await modern.call(`${upstream}__ask_twice`))).toBe('accept: one; accept: two');
        expect(resultText(await legacy.call(`${upstream}__ask_twice`))).toBe('accept: one; accept: two');
      }
    } finally {
      await modern.close();
      await legacy.close();
    }
  });
});

/** Runs `task` for 0..count-1, at most `width` at a time. */
async function inParallel<T>(
  count: number,
  width: number,
  task: (index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

interface Parked {
  key: string;
  requestState: string;
}

/** A call of modern__ask_user, parked in toolmesh while its question waits for an answer. */
async function park(): Promise<Parked> {
  const first = await roundTripCall(server.url, token, 'modern__ask_user', {});
  const [[key] = []] = questionsOf(first);
  return { key: key as string, requestState: first.result?.requestState as string };
}

async function finish({ key, requestState }: Parked, colour: string): Promise<string> {
  const done = await roundTripCall(
    server.url,
    token,
    'modern__ask_user',
    {},
    { requestState, inputResponses: { [key]: { action: 'accept', content: { colour } } } },
  );
  return answerText(done);
}

/**
 * A call whose server's question finds toolmesh full ends at once, saying why: a 2025 server
 * would report it in its result, this 2026-07-28 one cannot be told, so the call is answered
 * with the error.
 */
async function expectRefusedForTheCap() {
  const over = await roundTripCall(server.url, token, 'modern__ask_user', {});
  expect(over.result?.resultType, JSON.stringify(over)).not.toBe('input_required');
  expect(over.error?.message ?? (over.result?.isError && answerText(over))).toMatch(
    new RegExp(
      `toolmesh already holds ${MAX_PARKED_CALLS} calls waiting for their clients' answers.*retry the call later`,
    ),
  );
}

// Calls are parked one after another: toolmesh cannot tell which of one caller's concurrent
// calls to a server a question of that server belongs to (see relay-target.ts), so parked at
// once, their questions could land in one another's rounds.
describe(`the ${MAX_PARKED_CALLS} calls a process holds for their clients' answers`, () => {
  it('are the most: the next is refused saying why, and each slot is free again once its call ends', {
    timeout: 600_000,
  }, async () => {
    const held = await inParallel(MAX_PARKED_CALLS, 1, park);
    await expectRefusedForTheCap();

    // One call ends: its slot takes the next call, and the process is full again.
    expect(await finish(held.shift() as Parked, 'first')).toBe('accept: first (state asked-colour)');
    held.push(await park());
    await expectRefusedForTheCap();

    // Every call ends with its own answer; none is left held: the process takes a full load again.
    const finished = await inParallel(held.length, 8, (index) => finish(held[index] as Parked, `c${index}`));
    expect(finished).toEqual(held.map((_, index) => `accept: c${index} (state asked-colour)`));
    const again = await inParallel(MAX_PARKED_CALLS, 1, park);
    expect(new Set(again.map((parked) => parked.requestState)).size).toBe(MAX_PARKED_CALLS);
    await expectRefusedForTheCap();
    await inParallel(again.length, 8, (index) => finish(again[index] as Parked, 'done'));
  });
});
