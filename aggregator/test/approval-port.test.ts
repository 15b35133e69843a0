import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { Server } from '@modelcontextprotocol/server';
import { createLogger } from '@toolmesh/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalPort } from '../src/approvals/approval-port.js';
import { SqliteState } from '../src/state/sqlite-state.js';

const TIMEOUT_MS = 60_000;

let folder: string;
let state: SqliteState;
let clock: number;
let client: Client;
let server: Server;

/** A session whose client answers elicitations with `answer`, run after the clock moves by `elapseMs`. */
async function connect(answer: ElicitResult, elapseMs = 0): Promise<void> {
  server = new Server({ name: 'toolmesh', version: '0' }, { capabilities: {} });
  client = new Client({ name: 'person', version: '0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async () => {
    clock += elapseMs;
    return answer;
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  // toolmesh's session servers are the v2 SDK's; they serve a 2025 client over v1 transports too.
  await Promise.all([
    server.connect(serverSide as Parameters<Server['connect']>[0]),
    client.connect(clientSide),
  ]);
}

function port(): ApprovalPort {
  return new ApprovalPort({
    state,
    timeoutMs: TIMEOUT_MS,
    log: createLogger({ sink: () => {} }),
    now: () => clock,
  });
}

function ask() {
  return {
    client: server,
    session: 's1',
    identity: 'tester',
    mode: 'careful',
    tool: 'fs__write_file',
    server: 'fs',
    arguments: { path: 'a.txt', content: 'x' },
    reason: 'writes a file',
    signal: new AbortController().signal,
  };
}

beforeEach(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-approval-port-'));
  clock = 1_800_000_000_000;
  state = SqliteState.open(path.join(folder, 'state.sqlite'), { now: () => clock });
});
afterEach(async () => {
  await client?.close();
  await state.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('the approval port over elicitation', () => {
  it('runs the call the user accepts, and keeps the decision', async () => {
    await connect({ action: 'accept', content: {} });
    expect(await port().ask(ask())).toEqual({ approved: true, status: 'approved', by: 'user (elicitation)' });
    const [record] = await state.approvalHistory({ limit: 5 });
    expect(record).toMatchObject({ status: 'approved', channel: 'elicitation', tool: 'fs__write_file' });
  });

  it('does not run a call accepted after the approval expired, and records it as timed out', async () => {
    await connect({ action: 'accept', content: {} }, TIMEOUT_MS + 1);
    const outcome = await port().ask(ask());
    expect(outcome.approved).toBe(false);
    const [record] = await state.approvalHistory({ limit: 5 });
    expect(record?.status).toBe('timedOut');
  });

  it('lets a decision made elsewhere first stand over the user answer', async () => {
    await connect({ action: 'accept', content: {} });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      const [pending] = await state.pendingApprovals(clock);
      await state.decideApproval(pending?.id as string, { status: 'denied', decidedBy: 'ops' }, clock);
      return { action: 'accept', content: {} };
    });
    const outcome = await port().ask(ask());
    expect(outcome.approved).toBe(false);
    const [record] = await state.approvalHistory({ limit: 5 });
    expect(record).toMatchObject({ status: 'denied', decidedBy: 'ops' });
  });
});
