import path from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/load.js';
import { type Harness, startHarness, TICKETS_BIN } from './harness.js';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({});
  await harness.reload(
    parseConfig({
      mcpServers: {
        tickets: {
          command: process.execPath,
          args: [TICKETS_BIN],
          env: { TOOLMESH_DATA_DIR: path.join(harness.folder, 'data') },
        },
      },
      toolPolicy: { tickets__create_ticket: { requiresApproval: true } },
      approvalTimeoutMs: 5000,
    }),
  );
});
afterAll(() => harness.close());

/** A person at the client, approving every call put to them, and counting them. */
async function approver() {
  const connected = await harness.connect({ capabilities: { elicitation: { form: {} } } });
  const asked: string[] = [];
  connected.client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: {} };
  });
  return { ...connected, asked };
}

describe('a call that needs approval', () => {
  it('is refused without asking anyone when its arguments do not fit the tool', async () => {
    const session = await approver();
    const misfit = await session.call('tickets__create_ticket', { title: 'one ticket, wrongly given' });
    expect(misfit.isError).toBe(true);
    expect(resultText(misfit)).toMatch(
      /^tickets__create_ticket was not run, and no one was asked to approve it: arguments must have required property 'tickets'.*Correct the arguments/,
    );
    const emptyTitle = await session.call('tickets__create_ticket', { tickets: [{ priority: 'P1' }] });
    expect(resultText(emptyTitle)).toMatch(/arguments\/tickets\/0 must have required property 'title'/);
    expect(session.asked).toEqual([]);
    expect(await harness.aggregator.state.pendingApprovals(Date.now())).toEqual([]);
    const [record] = await harness.aggregator.state.auditRecords({ limit: 1 });
    expect(record).toMatchObject({ tool: 'tickets__create_ticket', outcome: 'refused' });
  });

  it('with arguments that fit, is put to the person and runs once approved', async () => {
    const session = await approver();
    const made = await session.call('tickets__create_ticket', { tickets: [{ title: 'rightly given' }] });
    expect(resultText(made)).toContain('rightly given');
    expect(made.isError).toBeFalsy();
    expect(session.asked).toHaveLength(1);
    expect(session.asked[0]).toMatch(/tickets__create_ticket/);
  });
});
