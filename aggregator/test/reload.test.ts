import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/load.js';
import { fixture, type Harness, startHarness, until } from './harness.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({ mcpServers: { kept: fixture('kept'), dropped: fixture('dropped') } });
});
afterAll(() => harness.close());

describe('reload', () => {
  it('adds, removes and restarts servers without dropping the client session', async () => {
    const connected = await harness.connect();
    let changes = 0;
    connected.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changes++;
    });
    const names = async () => (await connected.client.listTools()).tools.map((tool) => tool.name);
    expect(await names()).toEqual(expect.arrayContaining(['kept__echo', 'dropped__echo']));
    const keptBefore = harness.aggregator.upstreams.get('kept');

    const outcome = await harness.reload(
      parseConfig({
        mcpServers: { kept: fixture('kept'), added: fixture('added'), changed: fixture('changed') },
      }),
    );
    expect(outcome).toEqual({ added: ['added', 'changed'], removed: ['dropped'], restarted: [] });
    expect(harness.aggregator.upstreams.get('kept')).toBe(keptBefore);
    const after = await names();
    expect(after).toEqual(expect.arrayContaining(['kept__echo', 'added__echo']));
    expect(after).not.toContain('dropped__echo');
    expect(resultText(await connected.call('added__echo', { text: 'new' }))).toBe('added: new');
    await until(() => changes > 0);

    const restarted = await harness.reload(
      parseConfig({
        mcpServers: { kept: fixture('kept-renamed'), added: fixture('added'), changed: fixture('changed') },
      }),
    );
    expect(restarted.restarted).toEqual(['kept']);
    expect(resultText(await connected.call('kept__echo', { text: 'again' }))).toBe('kept-renamed: again');
  });
});
