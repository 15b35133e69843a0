import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, type Harness, startHarness, until } from './harness.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({ mcpServers: { grow: fixture('grow') } });
});
afterAll(() => harness.close());

describe('a downstream server whose prompts and resources change', () => {
  it('makes toolmesh tell clients that list changed, and only that list', async () => {
    const { client, call } = await harness.connect();
    const heard: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      heard.push('tools');
    });
    client.setNotificationHandler(PromptListChangedNotificationSchema, async () => {
      heard.push('prompts');
    });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {
      heard.push('resources');
    });

    expect(resultText(await call('grow__add_prompt', { prompt: 'summarise' }))).toBe(
      'added prompt summarise',
    );
    await until(() => heard.includes('prompts'));
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual([
      'grow__greet',
      'grow__summarise',
    ]);

    expect(resultText(await call('grow__add_resource', { resource: 'changelog' }))).toBe(
      'added resource changelog',
    );
    await until(() => heard.includes('resources'));
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toContain(
      'grow://added/changelog',
    );
    expect((await client.readResource({ uri: 'grow://added/changelog' })).contents[0]).toMatchObject({
      text: 'changelog',
    });

    // A tools/list_changed would have been sent before the other in the same round.
    expect(heard).toEqual(['prompts', 'resources']);
  });
});
