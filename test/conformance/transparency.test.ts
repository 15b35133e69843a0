import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript } from './run-script.js';
import { stopServer } from './server-process.mjs';
import { startFixture, startToolmeshOver } from './toolmesh-over-fixture.mjs';

const SCRIPT = fileURLToPath(new URL('./run-transparency.mjs', import.meta.url));

it('the conformance suite gives the same result through toolmesh as against the fixture directly', async () => {
  const { code, output } = await runScript(SCRIPT, 320_000);
  expect(code, output).toBe(0);
  expect(output).toMatch(/\b0 lost\b/);
}, 330_000);

describe('what the suite does not check, through toolmesh', () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-transparency-test-'));
  let fixture: ReturnType<typeof startFixture>;
  let toolmesh: ReturnType<typeof startToolmeshOver>;
  const clients: Client[] = [];

  beforeAll(async () => {
    fixture = startFixture();
    toolmesh = startToolmeshOver(await fixture.url, folder);
    await toolmesh.url;
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    if (toolmesh) await stopServer(toolmesh.child);
    if (fixture) await stopServer(fixture.child);
    rmSync(folder, { recursive: true, force: true });
  });

  async function connect() {
    const client = new Client({ name: 'transparency-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(await toolmesh.url)));
    clients.push(client);
    return client;
  }

  /** Counts `notifications/resources/updated` for test://watched-resource. */
  function countUpdates(client: Client) {
    const counter = { count: 0 };
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      if (notification.params.uri === 'test://watched-resource') counter.count++;
    });
    return counter;
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('relays resource updates to each subscribed client until it unsubscribes', async () => {
    const [first, second] = [await connect(), await connect()];
    const [firstUpdates, secondUpdates] = [countUpdates(first), countUpdates(second)];
    await first.subscribeResource({ uri: 'test://watched-resource' });
    await second.subscribeResource({ uri: 'test://watched-resource' });
    // The fixture tells its subscribers about the resource every 500 ms.
    await sleep(1200);
    expect(firstUpdates.count).toBeGreaterThan(0);
    expect(secondUpdates.count).toBeGreaterThan(0);

    await first.unsubscribeResource({ uri: 'test://watched-resource' });
    await sleep(100);
    const [firstAfter, secondAfter] = [firstUpdates.count, secondUpdates.count];
    await sleep(1200);
    expect(firstUpdates.count).toBe(firstAfter);
    // The fixture is still subscribed for the second client.
    expect(secondUpdates.count).toBeGreaterThan(secondAfter);
  });

  it("filters a server's log messages by each client's own level", async () => {
    const client = await connect();
    const messages: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      messages.push(notification.params.data);
    });
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'test_tool_with_logging' });
    expect(messages).toEqual([]);

    await client.setLoggingLevel('info');
    await client.callTool({ name: 'test_tool_with_logging' });
    expect(messages).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']);
  });
});
