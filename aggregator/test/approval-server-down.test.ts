import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FIXTURE_SERVER, type Harness, startHarness } from './harness.js';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness(
    {
      mcpServers: { echoes: { command: process.execPath, args: [FIXTURE_SERVER] } },
      toolPolicy: { echoes__echo: { requiresApproval: true } },
      approvalTimeoutMs: 5000,
    },
    // Once down, the server stays down for the whole test.
    { backoffBaseMs: 600_000, backoffMaxMs: 600_000 },
  );
});
afterAll(() => harness.close());

describe('a call that needs approval, to a server that is down', () => {
  it('is refused as unavailable without asking anyone', async () => {
    const connected = await harness.connect({ capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    connected.client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: {} };
    });
    await connected.call('echoes__crash', {});
    await vi.waitFor(() => expect(harness.aggregator.upstreams.get('echoes')?.state).toBe('restarting'), {
      timeout: 120_000,
      interval: 50,
    });
    const result = await connected.call('echoes__echo', { text: 'never run' });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/^echoes__echo cannot run now: server echoes is restarting/);
    expect(asked).toEqual([]);
    const [record] = await harness.aggregator.state.auditRecords({ limit: 1 });
    expect(record).toMatchObject({ tool: 'echoes__echo', outcome: 'unavailable' });
  });
});
