import { createRequire } from 'node:module';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { resultText, spawnStdioClient } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SERVER, type Harness, startHarness } from './harness.js';

const EVERYTHING = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({
    mcpServers: {
      everything: { command: process.execPath, args: [EVERYTHING] },
      fixture: { command: process.execPath, args: [FIXTURE_SERVER] },
    },
  });
});
afterAll(() => harness.close());

describe('through the aggregator, a server looks as it does directly', () => {
  it('lists the same tools with the same schemas, only renamed', async () => {
    // server-everything lists some tools only to clients that can sample or elicit, as toolmesh can.
    const direct = await spawnStdioClient(process.execPath, [EVERYTHING], {
      client: { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } } },
    });
    const { tools: directTools } = await direct.client.listTools();
    await direct.close();
    const proxied = await harness.connect();
    const { tools: proxiedTools } = await proxied.client.listTools();
    const mine = proxiedTools.filter((tool) => tool._meta?.['toolmesh/server'] === 'everything');
    expect(mine.map((tool) => tool.name)).toEqual(directTools.map((tool) => `everything__${tool.name}`));
    for (const [index, tool] of directTools.entries()) {
      const { name: _name, _meta: proxiedMeta, ...proxiedRest } = mine[index]!;
      const { name: _directName, _meta: directMeta, ...directRest } = tool;
      expect(proxiedRest).toEqual(directRest);
      expect(proxiedMeta).toMatchObject(directMeta ?? {});
    }
  });

  it('gives the same elicitation round trip', async () => {
    const capabilities = { capabilities: { elicitation: { form: {} } } };
    const answer = async () => ({ action: 'accept' as const, content: { colour: 'green' } });
    const direct = await spawnStdioClient(process.execPath, [FIXTURE_SERVER], { client: capabilities });
    direct.client.setRequestHandler(ElicitRequestSchema, answer);
    const directText = resultText(await direct.call('ask_user'));
    await direct.close();
    const proxied = await harness.connect(capabilities);
    proxied.client.setRequestHandler(ElicitRequestSchema, answer);
    expect(resultText(await proxied.call('fixture__ask_user'))).toBe(directText);
    expect(directText).toBe('accept: green');
  });
});
