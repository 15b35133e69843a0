import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  connectHttpClient,
  connectModernHttpClient,
  MODERN_REVISION,
  resultText,
  type SpawnedHttpServer,
} from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApprovalRequestState,
  dataDirectoryKey,
  REQUEST_STATE_KEY_FILE,
  RequestStateSeal,
} from '../src/approvals/request-state.js';
import type { AuditRecord } from '../src/audit/audit-record.js';
import { serveToolmeshHttp, TICKETS_BIN, TOOLMESH_BIN } from './harness.js';
import { answerText, type Retry, roundTripCall } from './round-trip-call.js';

// Approvals for 2026-07-28 clients are round trips of the call (MRTR): toolmesh answers
// input_required with the approval form and a sealed requestState; the retry brings the
// person's answer back. A real toolmesh over HTTP, in front of a real tickets server whose
// create_ticket needs approval; every refused state is said why and audited.

const exec = promisify(execFile);

let folder: string;
let dataDir: string;
let server: SpawnedHttpServer;
let token: string;
let otherToken: string;

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-mrtr-'));
  mkdirSync(path.join(folder, 'alpha'));
  dataDir = path.join(folder, 'data');
  const config = path.join(folder, 'toolmesh.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        tickets: { command: process.execPath, args: [TICKETS_BIN, '--db', 'tickets.db'], cwd: folder },
      },
      toolPolicy: { tickets__create_ticket: { requiresApproval: true } },
    }),
  );
  const env = { TOOLMESH_DATA_DIR: dataDir, HOME: folder, REDIS_URL: '' };
  ({ server, token } = await serveToolmeshHttp(config, folder, env));
  const made = await exec(
    process.execPath,
    [TOOLMESH_BIN, 'token', 'create', '--config', config, '--name', 'someone-else'],
    { env: { ...process.env, ...env } },
  );
  otherToken = made.stdout.split('\n').find((line) => line.startsWith('tm_')) as string;
});
afterAll(async () => {
  await server?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** One 2026-07-28 call of create_ticket by a client that can show forms, with what a retry carries. */
const call = (args: Record<string, unknown>, retry: Retry = {}, bearer = token) =>
  roundTripCall(server.url, bearer, 'tickets__create_ticket', args, retry);

const accept = { approval: { action: 'accept', content: {} } };
const ticket = (title: string) => ({ tickets: [{ title }] });

/** The first round: the form, and the state to send back. */
async function asked(args: Record<string, unknown>, bearer = token) {
  const first = await call(args, {}, bearer);
  expect(first.result?.resultType, JSON.stringify(first)).toBe('input_required');
  expect(first.result?.inputRequests?.approval?.method).toBe('elicitation/create');
  expect(first.result?.inputRequests?.approval?.params.message).toMatch(/tickets__create_ticket/);
  return first.result?.requestState as string;
}

async function titles(): Promise<string[]> {
  const client = await connectHttpClient(server.url, { token });
  try {
    const listed = await client.call('tickets__list_tickets', {});
    return ((listed.structuredContent as { tickets: { title: string }[] }).tickets ?? []).map(
      (found) => found.title,
    );
  } finally {
    await client.close();
  }
}

async function audited(): Promise<AuditRecord[]> {
  const listed = await exec(process.execPath, [TOOLMESH_BIN, 'audit', '--since', '1h', '--json'], {
    env: { ...process.env, TOOLMESH_DATA_DIR: dataDir },
  });
  return JSON.parse(listed.stdout) as AuditRecord[];
}

describe(`approval of a ${MODERN_REVISION} call by round trip`, () => {
  it('asks with the form, runs the approved call once, and refuses its state replayed', async () => {
    const requestState = await asked(ticket('approved once'));
    const done = await call(ticket('approved once'), { requestState, inputResponses: accept });
    expect(done.result?.isError, answerText(done)).toBeFalsy();
    expect(done.result?.structuredContent).toMatchObject({ tickets: [{ title: 'approved once' }] });

    const replayed = await call(ticket('approved once'), { requestState, inputResponses: accept });
    expect(replayed.result?.isError).toBe(true);
    expect(answerText(replayed)).toMatch(/used already .* a state runs one call/);
    expect((await titles()).filter((title) => title === 'approved once')).toHaveLength(1);
  });

  it('runs a call the user declines not at all', async () => {
    const requestState = await asked(ticket('declined'));
    const declined = await call(ticket('declined'), {
      requestState,
      inputResponses: { approval: { action: 'decline' } },
    });
    expect(declined.result?.isError).toBe(true);
    expect(answerText(declined)).toMatch(/declined by the user/);
    expect(await titles()).not.toContain('declined');
  });

  it('refuses a state sent back with other arguments, by another principal, altered or expired', async () => {
    const forOne = await asked(ticket('the approved title'));
    const changed = await call(ticket('a different title'), { requestState: forOne, inputResponses: accept });
    expect(answerText(changed)).toMatch(/arguments differ from those the request state was issued for/);

    const mine = await asked(ticket('mine'));
    const foreign = await call(ticket('mine'), { requestState: mine, inputResponses: accept }, otherToken);
    expect(answerText(foreign)).toMatch(/issued to another caller/);

    const theirs = await asked(ticket('altered'));
    const [body, mac] = theirs.split('.') as [string, string];
    const state = JSON.parse(Buffer.from(body, 'base64url').toString()) as ApprovalRequestState;
    const widened = Buffer.from(
      JSON.stringify({ ...state, expiresAt: state.expiresAt + 86_400_000 }),
    ).toString('base64url');
    const altered = await call(ticket('altered'), {
      requestState: `${widened}.${mac}`,
      inputResponses: accept,
    });
    expect(answerText(altered)).toMatch(/altered or issued by another key/);

    // Sealed with the real key (kept 0600 in the data directory), but past its expiry.
    const keyFile = path.join(dataDir, REQUEST_STATE_KEY_FILE);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
    const seal = new RequestStateSeal(() => dataDirectoryKey(dataDir));
    const fresh = await asked(ticket('expired'));
    const opened = seal.open(fresh);
    if (!('state' in opened)) throw new Error(opened.problem);
    const expired = seal.seal({ ...opened.state, expiresAt: Date.now() - 1000 });
    const late = await call(ticket('expired'), { requestState: expired, inputResponses: accept });
    expect(answerText(late)).toMatch(/the approval expired at/);

    const landed = await titles();
    for (const title of ['the approved title', 'a different title', 'mine', 'altered', 'expired'])
      expect(landed).not.toContain(title);

    const refusals = (await audited()).filter(
      (record) => record.outcome === 'refused' && record.approval === 'refused',
    );
    for (const why of [
      /arguments differ/,
      /issued to another caller/,
      /altered or issued by another key/,
      /approval expired/,
      /used already/,
    ])
      expect(refusals.map((record) => record.error).some((error) => why.test(error ?? ''))).toBe(true);
  });

  it('is fulfilled by the v2 SDK client from its elicitation handler', async () => {
    const client = await connectModernHttpClient(server.url, {
      token,
      capabilities: { elicitation: { form: {} } },
    });
    let asks = 0;
    client.client.setRequestHandler('elicitation/create', async () => {
      asks += 1;
      return { action: 'accept', content: {} };
    });
    try {
      const done = await client.call('tickets__create_ticket', ticket('through the SDK'));
      expect(done.isError, resultText(done)).toBeFalsy();
      expect(asks).toBe(1);
      expect((await titles()).filter((title) => title === 'through the SDK')).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});
