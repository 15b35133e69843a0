import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  connectModernHttpClient,
  MODERN_REVISION,
  type ModernClient,
  resultText,
  type SpawnedHttpServer,
  spawnHttpServer,
  spawnModernStdioClient,
  spawnRawStdio,
} from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataDirectoryKey, RequestStateSeal } from '../src/approvals/request-state.js';
import type { AuditRecord } from '../src/audit/audit-record.js';
import { fixture, TOOLMESH_BIN, until } from './harness.js';
import { answerText, type RoundTripAnswer, roundTripCall } from './round-trip-call.js';

// What a downstream server asks its client during a call reaches a 2026-07-28 client as a
// round trip of that call (MRTR): the call ends input_required with the question while the
// server's call waits, parked in toolmesh, and the client's retry brings the answer back to it.
// Real `toolmesh serve` processes over HTTP and stdio, in front of a 2025 server (v1 SDK) that
// asks by request and a 2026-07-28-only server (v2 server package) that answers input_required.

const exec = promisify(execFile);
const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));

let folder: string;
let dataDir: string;
let config: string;
let server: SpawnedHttpServer;
let token: string;
let otherToken: string;

const env = () => ({ TOOLMESH_DATA_DIR: dataDir, HOME: folder, REDIS_URL: '' });

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-relay-mrtr-'));
  dataDir = path.join(folder, 'data');
  config = path.join(folder, 'toolmesh.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        fixture: fixture('fixture'),
        modern: { command: process.execPath, args: [MODERN_SERVER], env: { FIXTURE_NAME: 'modern' } },
      },
      // A call that needs approval gets its approval round first, then its server's questions.
      toolPolicy: { modern__ask_model: { requiresApproval: true } },
    }),
  );
  server = await spawnHttpServer(process.execPath, [TOOLMESH_BIN, 'serve', '--config', config], {
    env: env(),
    cwd: folder,
    ms: 60_000,
  });
  token = /Bearer (tm_[\w-]+)/.exec(server.stderr())?.[1] as string;
  const made = await exec(
    process.execPath,
    [TOOLMESH_BIN, 'token', 'create', '--config', config, '--name', 'someone-else'],
    { env: { ...process.env, ...env() } },
  );
  otherToken = made.stdout.split('\n').find((line) => line.startsWith('tm_')) as string;
});
afterAll(async () => {
  await server?.close();
  rmSync(folder, { recursive: true, force: true });
});

async function audited(): Promise<AuditRecord[]> {
  const listed = await exec(process.execPath, [TOOLMESH_BIN, 'audit', '--since', '1h', '--json'], {
    env: { ...process.env, TOOLMESH_DATA_DIR: dataDir },
  });
  return JSON.parse(listed.stdout) as AuditRecord[];
}

/** A modern client whose user answers every form with `colour` (or declines, cancels) and whose model says hello. */
function answering(
  client: ModernClient,
  answer: () => { action: string; content?: Record<string, unknown> },
) {
  const asked: string[] = [];
  client.client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(`elicitation: ${request.params.message}`);
    return answer() as never;
  });
  client.client.setRequestHandler('sampling/createMessage', async () => {
    asked.push('sampling');
    return { role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'test-model' };
  });
  return asked;
}

const accepting = () => ({ action: 'accept', content: { colour: 'blue' } });
const BOTH = { capabilities: { elicitation: { form: {} }, sampling: {} } };

describe(`a server's questions to a ${MODERN_REVISION} client over HTTP`, () => {
  it('reach the client as round trips of the call, from a 2025 server and a 2026-07-28 one', async () => {
    const client = await connectModernHttpClient(server.url, { token, ...BOTH });
    const asked = answering(client, accepting);
    try {
      expect(resultText(await client.call('fixture__ask_user'))).toBe('accept: blue');
      expect(resultText(await client.call('fixture__ask_model'))).toBe('model said: hello');
      expect(resultText(await client.call('modern__ask_user'))).toBe('accept: blue (state asked-colour)');
      expect(asked).toEqual(['elicitation: Favourite colour?', 'sampling', 'elicitation: Favourite colour?']);
    } finally {
      await client.close();
    }
  });

  it('come after the approval round when the call needs approval', async () => {
    const client = await connectModernHttpClient(server.url, { token, ...BOTH });
    const asked = answering(client, () => ({ action: 'accept', content: {} }));
    try {
      expect(resultText(await client.call('modern__ask_model'))).toBe('model said: hello');
      expect(asked).toHaveLength(2);
      expect(asked[0]).toMatch(/^elicitation: toolmesh: .* wants to run modern__ask_model/);
      expect(asked[1]).toBe('sampling');
    } finally {
      await client.close();
    }
  });

  it("pass the user's decline and cancel through to the server", async () => {
    let action = 'decline';
    const client = await connectModernHttpClient(server.url, { token, ...BOTH });
    answering(client, () => ({ action }));
    try {
      expect(resultText(await client.call('fixture__ask_user'))).toBe('decline: ');
      expect(resultText(await client.call('modern__ask_user'))).toBe('decline:  (state asked-colour)');
      action = 'cancel';
      expect(resultText(await client.call('fixture__ask_user'))).toBe('cancel: ');
    } finally {
      await client.close();
    }
  });

  it('are refused, saying why, for what the request does not declare', async () => {
    const client = await connectModernHttpClient(server.url, {
      token,
      capabilities: { elicitation: { form: {} } },
    });
    try {
      const refused = await client.call('fixture__ask_model');
      expect(refused.isError, resultText(refused)).toBe(true);
      expect(resultText(refused)).toMatch(/its request does not declare sampling/);
    } finally {
      await client.close();
    }
  });
});

/** The first round of fixture__ask_user by hand: the question, and the state to send back. */
async function parked(bearer = token): Promise<{ key: string; requestState: string }> {
  const first = await roundTripCall(server.url, bearer, 'fixture__ask_user', {});
  expect(first.result?.resultType, JSON.stringify(first)).toBe('input_required');
  const [key, question] = Object.entries(first.result?.inputRequests ?? {})[0] ?? [];
  expect(question?.method).toBe('elicitation/create');
  expect(question?.params.message).toBe('Favourite colour?');
  return { key: key as string, requestState: first.result?.requestState as string };
}

const answer = (key: string, colour: string) => ({ [key]: { action: 'accept', content: { colour } } });

function refusedWith(answered: RoundTripAnswer, why: RegExp) {
  expect(answered.result?.isError, JSON.stringify(answered)).toBe(true);
  expect(answerText(answered)).toMatch(why);
  expect(answerText(answered)).toMatch(/Call it again without requestState/);
}

describe('the request state of a parked call', () => {
  it('resumes the call once: a replay is refused', async () => {
    const { key, requestState } = await parked();
    const done = await roundTripCall(
      server.url,
      token,
      'fixture__ask_user',
      {},
      {
        requestState,
        inputResponses: answer(key, 'red'),
      },
    );
    expect(answerText(done)).toBe('accept: red');
    const replayed = await roundTripCall(
      server.url,
      token,
      'fixture__ask_user',
      {},
      {
        requestState,
        inputResponses: answer(key, 'red'),
      },
    );
    refusedWith(replayed, /used already/);
  });

  it('is refused altered, of another principal, for other arguments, or expired; each audited', async () => {
    const { key, requestState } = await parked();
    const [body, mac] = requestState.split('.') as [string, string];
    const state = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    const widened = Buffer.from(JSON.stringify({ ...state, round: 2 })).toString('base64url');
    const retry = (state: string, bearer = token, args: Record<string, unknown> = {}) =>
      roundTripCall(server.url, bearer, 'fixture__ask_user', args, {
        requestState: state,
        inputResponses: answer(key, 'green'),
      });
    refusedWith(await retry(`${widened}.${mac}`), /altered or issued by another key/);
    refusedWith(await retry(requestState, otherToken), /issued to another caller/);
    refusedWith(await retry(requestState, token, { colour: 'other' }), /arguments differ/);

    // Sealed with the real key, but past its expiry: refused, and the parked call is ended.
    const seal = new RequestStateSeal(() => dataDirectoryKey(dataDir));
    const opened = seal.open(requestState);
    if (!('state' in opened)) throw new Error(opened.problem);
    refusedWith(await retry(seal.seal({ ...opened.state, expiresAt: Date.now() - 1000 })), /expired at/);
    // The state itself ended with the call.
    refusedWith(await retry(requestState), /used already/);

    const records = await audited();
    const refusals = records.filter(
      (record) => record.tool === 'fixture__ask_user' && record.outcome === 'refused',
    );
    for (const why of [/altered/, /another caller/, /arguments differ/, /expired at/, /used already/])
      expect(
        refusals.some((record) => why.test(record.error ?? '')),
        String(why),
      ).toBe(true);
    await until(
      async () =>
        (await audited()).some(
          (record) => record.tool === 'fixture__ask_user' && record.outcome === 'cancelled',
        ),
      60_000,
    );
  });
});

describe('a parked call whose client does not come back', () => {
  it('is cancelled at its server and audited; its state is cut off in another process', async () => {
    // A second toolmesh on the same data directory (same key, same tokens), whose calls wait 1 s.
    const impatient = path.join(folder, 'impatient.json');
    writeFileSync(
      impatient,
      JSON.stringify({ mcpServers: { fixture: fixture('fixture') }, approvalTimeoutMs: 1000 }),
    );
    const other = await spawnHttpServer(process.execPath, [TOOLMESH_BIN, 'serve', '--config', impatient], {
      env: env(),
      cwd: folder,
      ms: 60_000,
    });
    try {
      const first = await roundTripCall(other.url, token, 'fixture__ask_user', {});
      expect(first.result?.resultType).toBe('input_required');
      await until(
        async () =>
          (await audited()).some(
            (record) =>
              record.outcome === 'cancelled' &&
              /did not come back with an answer within 1 s/.test(record.error ?? ''),
          ),
        60_000,
      );

      // A state of the first toolmesh, sent to the second: the call it names is not held there.
      const { key, requestState } = await parked();
      const elsewhere = await roundTripCall(
        other.url,
        token,
        'fixture__ask_user',
        {},
        {
          requestState,
          inputResponses: answer(key, 'blue'),
        },
      );
      refusedWith(elsewhere, /the call was cut off/);
    } finally {
      await other.close();
    }
  });
});

describe(`a server's questions to a ${MODERN_REVISION} client over stdio`, () => {
  it('reach the client as round trips of the call', async () => {
    const client = await spawnModernStdioClient(
      process.execPath,
      [TOOLMESH_BIN, 'serve', '--config', config],
      {
        env: env(),
        cwd: folder,
        client: BOTH,
      },
    );
    const asked = answering(client, accepting);
    try {
      expect(resultText(await client.call('fixture__ask_user'))).toBe('accept: blue');
      expect(resultText(await client.call('modern__ask_user'))).toBe('accept: blue (state asked-colour)');
      expect(resultText(await client.call('fixture__ask_model'))).toBe('model said: hello');
      expect(asked).toHaveLength(3);
    } finally {
      await client.close();
    }
  });
});

describe(`a parked call of a ${MODERN_REVISION} client over stdio that does not come back`, () => {
  it('is cancelled at its server once its wait is over, its first round answered past the SDK', async () => {
    const impatient = path.join(folder, 'impatient-stdio.json');
    writeFileSync(
      impatient,
      JSON.stringify({ mcpServers: { fixture: fixture('fixture') }, approvalTimeoutMs: 1000 }),
    );
    const peer = spawnRawStdio(process.execPath, [TOOLMESH_BIN, 'serve', '--config', impatient], {
      env: env(),
      cwd: folder,
    });
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    };
    try {
      // The SDK's stdio entry serves the opening messages (the discover and the call after it);
      // the call that parks comes after them, taken off the line and answered past the SDK.
      await peer.request('server/discover', { _meta: envelope }, 60_000);
      const echo = { name: 'fixture__echo', arguments: { text: 'hi' }, _meta: envelope };
      for (let opening = 0; opening < 2; opening++)
        expect((await peer.request('tools/call', echo, 60_000)).result).toMatchObject({
          resultType: 'complete',
        });
      const parked = await peer.request(
        'tools/call',
        { name: 'fixture__ask_user', arguments: {}, _meta: envelope },
        60_000,
      );
      expect(parked.result).toMatchObject({ resultType: 'input_required' });
      await until(() => peer.stderr().includes('ask_user: cancelled'), 60_000);
      await until(
        async () =>
          (await audited()).some(
            (record) =>
              record.tool === 'fixture__ask_user' &&
              record.identity.startsWith('local:') &&
              record.outcome === 'cancelled' &&
              /did not come back with an answer within 1 s/.test(record.error ?? ''),
          ),
        60_000,
      );
    } finally {
      await peer.close();
    }
  });
});
