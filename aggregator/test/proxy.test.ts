import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FS_BIN, fixture, type Harness, startHarness, until } from './harness.js';
import { ManualClock } from './manual-clock.js';

let harness: Harness;
let root: string;
/** Restarts wait on it, so a crashed server stays "restarting" until a test moves it on. */
const clock = new ManualClock();

beforeAll(async () => {
  const placeholder = await startHarness({});
  root = placeholder.folder;
  writeFileSync(path.join(root, 'notes.txt'), 'proxied through toolmesh\n');
  harness = await startHarness(
    {
      mcpServers: {
        fs: {
          command: process.execPath,
          args: [FS_BIN, '--root', root],
          env: { TOOLMESH_DATA_DIR: path.join(root, '.data') },
        },
        fixture: fixture('fixture', { disabledTools: ['client_roots'] }),
        other: fixture('other'),
      },
      callTimeoutMs: 1500,
      resultMaxBytes: 4000,
    },
    { clock },
  );
  await placeholder.aggregator.stop();
});
afterAll(() => harness.close());

describe('the merged registry', () => {
  it('lists every server tool as <server>__<tool>, in server order, plus the discovery tools', async () => {
    const { client } = await harness.connect();
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names.slice(0, 3)).toEqual(['fs__stat_file', 'fs__read_file', 'fs__list_dir']);
    expect(names).toEqual(
      expect.arrayContaining([
        'fixture__echo',
        'other__echo',
        'search_tool_bm25',
        'list_my_tools',
        'call_tool',
      ]),
    );
    expect(names).not.toContain('fixture__client_roots');
    const readFile = (await client.listTools()).tools.find((tool) => tool.name === 'fs__read_file');
    expect(readFile?._meta).toMatchObject({
      'toolmesh/actions': ['read'],
      'toolmesh/server': 'fs',
      'toolmesh/name': 'read_file',
    });
  });

  it('forwards calls to the server that owns the tool', async () => {
    const { call } = await harness.connect();
    expect((await call('fs__read_file', { path: 'notes.txt' })).structuredContent).toMatchObject({
      content: 'proxied through toolmesh\n',
    });
    expect(resultText(await call('fixture__echo', { text: 'hi' }))).toBe('fixture: hi');
    expect(resultText(await call('other__echo', { text: 'hi' }))).toBe('other: hi');
  });

  it("tells the server who is calling, in the request's _meta", async () => {
    const { call } = await harness.connect();
    expect(resultText(await call('fixture__whoami'))).toMatch(/^local:.+/);
  });

  it("gives the server one conversation key per session, in the request's _meta", async () => {
    const conversation = async (client: Awaited<ReturnType<Harness['connect']>>) =>
      resultText(await client.call('fixture__conversation'));
    const one = await harness.connect();
    const two = await harness.connect();
    const first = await conversation(one);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(await conversation(one)).toBe(first);
    expect(await conversation(two)).not.toBe(first);
  });

  it('shows only the discovery tools on a discovery endpoint, and calls through call_tool', async () => {
    const { client, call } = await harness.connect({ exposure: 'discovery' });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'search_tool_bm25',
      'list_my_tools',
      'call_tool',
      'todo_write',
      'todo_read',
      'list_workspaces',
    ]);
    expect(
      resultText(await call('call_tool', { name: 'fixture__echo', arguments: { text: 'via call_tool' } })),
    ).toBe('fixture: via call_tool');
    await expect(call('fixture__echo', { text: 'direct' })).rejects.toThrow(/through call_tool/);
  });

  it('merges prompts, resources and templates, each read from its owner', async () => {
    const { client } = await harness.connect();
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual([
      'fixture__greet',
      'other__greet',
    ]);
    const prompt = await client.getPrompt({ name: 'other__greet', arguments: { who: 'Ada' } });
    expect(prompt.messages[0]?.content).toMatchObject({ text: 'Hello, Ada' });
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual([
      'fixture://readme',
      'fixture://roots-seen',
      'other://readme',
      'other://roots-seen',
    ]);
    expect((await client.readResource({ uri: 'other://readme' })).contents[0]).toMatchObject({
      text: 'readme of other',
    });
    expect((await client.readResource({ uri: 'fixture://notes/7' })).contents[0]).toMatchObject({
      text: 'note 7',
    });
  });
});

describe('discovery', () => {
  it('finds a tool by keywords and says whether it is callable', async () => {
    const { call } = await harness.connect();
    const found = (await call('search_tool_bm25', { query: 'search text in files', limit: 3 }))
      .structuredContent as {
      results: { name: string; callable: boolean; inputSchema: object }[];
    };
    expect(found.results[0]).toMatchObject({ name: 'fs__search_text', callable: true });
    expect(found.results[0]?.inputSchema).toMatchObject({ type: 'object' });
    const listed = (await call('list_my_tools', { server: 'fixture' })).structuredContent as {
      servers: { server: string; tools: unknown[] }[];
    };
    expect(listed.servers).toHaveLength(1);
    expect(listed.servers[0]?.tools.length).toBeGreaterThan(5);
  });

  it('explains unknown names and servers with suggestions', async () => {
    const { call } = await harness.connect();
    expect(resultText(await call('call_tool', { name: 'fixture__ech', arguments: {} }))).toMatch(
      /No tool named fixture__ech\. Did you mean .*fixture__echo.*\? Find tools with search_tool_bm25\./,
    );
    expect(resultText(await call('list_my_tools', { server: 'nope' }))).toMatch(
      /No server named nope\. Servers: fs, fixture, other/,
    );
  });
});

describe('calls in flight', () => {
  it('passes progress through under the client token', async () => {
    const { client } = await harness.connect();
    const seen: number[] = [];
    const result = await client.callTool({ name: 'fixture__count_slowly', arguments: { n: 4 } }, undefined, {
      onprogress: (progress) => seen.push(progress.progress),
    });
    expect(resultText(result as never)).toBe('counted to 4');
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it('forwards cancellation to the server', async () => {
    const { client } = await harness.connect();
    const controller = new AbortController();
    const pending = client.callTool({ name: 'fixture__hang', arguments: {} }, undefined, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 200);
    await expect(pending).rejects.toThrow();
    await until(() => harness.logs.some((line) => line.includes('hang: cancelled')));
  });

  it('times a call out, cancels it downstream and says so', async () => {
    const { call } = await harness.connect();
    const result = await call('fixture__hang');
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(
      /^fixture__hang was cancelled after \d+(\.\d)? s without an answer \(its timeout is 1\.5 s\)/,
    );
  });

  it('cuts an oversized result to the budget and marks it', async () => {
    const { call } = await harness.connect();
    const result = await call('fixture__big', { n: 20_000 });
    expect(JSON.stringify(result).length).toBeLessThan(5000);
    expect(result._meta).toMatchObject({ truncated: true });
    expect(resultText(result)).toMatch(/toolmesh cut this result/);
  });

  const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
  const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

  it('cuts text by its JSON size: control characters, six bytes each there, stay within the budget', async () => {
    const { call } = await harness.connect();
    const result = await call('fixture__big', { n: 20_000, kind: 'control' });
    expect(jsonBytes(result)).toBeLessThanOrEqual(4000);
    const [kept] = result.content as { type: string; text: string }[];
    // Most of the budget goes to the text (6 bytes a character), the rest to the note and _meta.
    expect(kept?.text).toMatch(/^\u0001{400,}$/);
    expect(result._meta).toMatchObject({ truncated: true });
    expect((result._meta as { minimumRequiredBytes: number }).minimumRequiredBytes).toBeGreaterThan(100_000);
  });

  it('cuts multi-byte text between characters, never inside a surrogate pair', async () => {
    const { call } = await harness.connect();
    const result = await call('fixture__big', { n: 5000, kind: 'multibyte' });
    expect(jsonBytes(result)).toBeLessThanOrEqual(4000);
    const [kept, note] = result.content as { type: string; text: string }[];
    expect('😀é'.repeat(5000).startsWith(kept?.text ?? '')).toBe(true);
    expect(kept?.text.length).toBeGreaterThan(1000);
    expect(kept?.text).not.toMatch(LONE_SURROGATE);
    expect(note?.text).toMatch(/cut text block 1 after \d+ of 15000 characters/);
  });

  it('says which blocks it left out of a mixed result, and keeps their order', async () => {
    const { call } = await harness.connect();
    const imageTooBig = await call('fixture__big', { n: 6000, kind: 'mixed' });
    expect(jsonBytes(imageTooBig)).toBeLessThanOrEqual(4000);
    expect(imageTooBig.content.map((block) => block.type)).toEqual(['text', 'text']);
    expect(resultText(imageTooBig)).toMatch(
      /kept 1 of 4 content blocks whole; left out 1 image block, 1 text block, 1 resource block\./,
    );
    const textCut = await call('fixture__big', { n: 1500, kind: 'mixed' });
    expect(jsonBytes(textCut)).toBeLessThanOrEqual(4000);
    expect(textCut.content.map((block) => block.type)).toEqual(['text', 'image', 'text', 'text']);
    expect(resultText(textCut)).toMatch(
      /kept 2 of 4 content blocks whole; cut text block 3 after \d+ of 1500 characters; left out 1 resource block\./,
    );
    expect(textCut._meta).toMatchObject({ truncated: true });
    expect(textCut._meta).not.toHaveProperty('blockedByBudget');
  });

  it('keeps structured content whole when it fits, else leaves it out and says so in an error', async () => {
    const { call } = await harness.connect();
    const fits = await call('fixture__big', { n: 80, kind: 'structured' });
    expect(jsonBytes(fits)).toBeLessThanOrEqual(4000);
    expect((fits.structuredContent as { items: unknown[] }).items).toHaveLength(80);
    expect(fits.isError).toBeUndefined();
    expect(resultText(fits)).toMatch(/cut text block 1 after/);
    const tooBig = await call('fixture__big', { n: 1000, kind: 'structured' });
    expect(jsonBytes(tooBig)).toBeLessThanOrEqual(4000);
    expect(tooBig.structuredContent).toBeUndefined();
    expect(tooBig.isError).toBe(true);
    expect(resultText(tooBig)).toMatch(/^\{"items":\[\{"index":0/);
    expect(resultText(tooBig)).toMatch(/left out structuredContent \(\d+ bytes\)\. Ask the tool for less/);
    expect(tooBig._meta).toMatchObject({ truncated: true });
  });
});

describe('server-to-client requests', () => {
  it('relays elicitation, sampling and roots to the client that supports them', async () => {
    const connected = await harness.connect({
      capabilities: { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } },
    });
    connected.client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { colour: 'blue' },
    }));
    connected.client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      model: 'test',
      content: { type: 'text', text: 'hi there' },
    }));
    connected.client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: [{ uri: pathToFileURL(root).href }],
    }));
    expect(resultText(await connected.call('fixture__ask_user'))).toBe('accept: blue');
    expect(resultText(await connected.call('other__ask_model'))).toBe('model said: hi there');
    expect(resultText(await connected.call('other__client_roots'))).toBe(pathToFileURL(root).href);
  });
});

describe('a server that crashes', () => {
  it('is restarted with backoff, its tools answer "restarting" meanwhile, and clients hear list_changed', async () => {
    const connected = await harness.connect();
    let changes = 0;
    connected.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changes++;
    });
    const crashed = await connected.call('other__crash');
    expect(crashed.isError).toBe(true);
    await until(() => clock.delays().length === 1);
    const meanwhile = await connected.call('other__echo', { text: 'x' });
    expect(meanwhile.isError).toBe(true);
    expect(resultText(meanwhile)).toMatch(/server other is restarting, retry in 1 s/);
    clock.advance(clock.delays()[0] as number);
    await until(() => harness.aggregator.upstreams.get('other')?.state === 'ready');
    expect(resultText(await connected.call('other__echo', { text: 'back' }))).toBe('other: back');
    await until(() => changes > 0);
  });
});
