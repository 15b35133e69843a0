import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { META_KEYS } from '../src/actions.js';
import { toolDefiner, withContent } from '../src/define-tool.js';
import { startHttpFront } from '../src/http-front.js';
import { createLogger } from '../src/logger.js';
import { answersPastTheSdk } from '../src/modern-tool-calls.js';
import { connectInMemory, connectModernHttpClient, resultText } from '../src/testing.js';
import { ToolError } from '../src/tool-error.js';
import { createToolServer } from '../src/tool-server.js';

interface Counter {
  count: number;
}
const defineTool = toolDefiner<Counter>();

const add = defineTool({
  name: 'add',
  title: 'Add to the counter',
  description: 'Adds by to the counter.',
  capability: 'write',
  input: z.object({ by: z.number().int().min(1).max(10).describe('How much to add.') }),
  output: z.object({ count: z.number() }),
  annotations: { readOnlyHint: false },
  actions: ['memoryWrite'],
  requiresApproval: true,
  workspaceScoped: true,
  render: (output) => `count is ${output.count}`,
  async handle({ by }, { engine, progress }) {
    await progress(1, 2, 'adding');
    engine.count += by;
    await progress(2, 2);
    return { count: engine.count };
  },
});

const whoami = defineTool({
  name: 'whoami',
  title: 'Who am I',
  description: 'Says who is calling and in which workspace.',
  capability: 'read',
  input: z.object({}),
  output: z.object({ identity: z.string(), workspace: z.string() }),
  annotations: { readOnlyHint: true },
  actions: ['read'],
  workspaceScoped: true,
  async handle(input, { identity, workspace }) {
    expect(input).toEqual({});
    return { identity, workspace };
  },
});

const fail = defineTool({
  name: 'fail',
  title: 'Fail',
  description: 'Fails as asked.',
  capability: 'read',
  input: z.object({ how: z.enum(['tool', 'crash', 'bad-output']) }),
  output: z.object({ ok: z.boolean() }),
  annotations: { readOnlyHint: true },
  actions: ['read'],
  async handle({ how }) {
    if (how === 'tool') throw new ToolError('Nothing there: try another name.', 'not_found');
    if (how === 'crash') throw new TypeError('cannot read properties of undefined');
    return { ok: 'yes' } as unknown as { ok: boolean };
  },
});

const picture = defineTool({
  name: 'picture',
  title: 'Picture',
  description: 'Returns an image block.',
  capability: 'read',
  input: z.object({}),
  output: z.object({ bytes: z.number() }),
  annotations: { readOnlyHint: true },
  actions: ['read'],
  async handle() {
    return withContent({ bytes: 1 }, [{ type: 'image', data: 'AA==', mimeType: 'image/png' }]);
  },
});

function serverWith(engine: Counter) {
  return createToolServer({
    name: 'counter',
    version: '1.0.0',
    tools: [add, fail, picture],
    engine,
    log: createLogger({ level: 'error', sink: () => undefined }),
  });
}

describe('createToolServer', () => {
  it('lists tools with JSON Schemas, annotations and policy facts in _meta', async () => {
    const { client, close } = await connectInMemory(serverWith({ count: 0 }));
    const { tools } = await client.listTools();
    const entry = tools.find((tool) => tool.name === 'add');
    expect(entry?.inputSchema).toMatchObject({
      type: 'object',
      properties: { by: { type: 'integer', maximum: 10 } },
      required: ['by'],
    });
    expect(entry?.outputSchema).toMatchObject({ type: 'object', properties: { count: { type: 'number' } } });
    expect(entry?.annotations).toMatchObject({ title: 'Add to the counter', readOnlyHint: false });
    expect(entry?._meta).toEqual({
      [META_KEYS.actions]: ['memoryWrite'],
      [META_KEYS.requiresApproval]: true,
      [META_KEYS.workspaceScoped]: true,
    });
    await close();
  });

  it('returns structuredContent and its text rendering, with progress when asked', async () => {
    const engine = { count: 0 };
    const { client, close } = await connectInMemory(serverWith(engine));
    const progress: number[] = [];
    const result = await client.callTool({ name: 'add', arguments: { by: 3 } }, undefined, {
      onprogress: (update) => progress.push(update.progress),
    });
    expect(result.structuredContent).toEqual({ count: 3 });
    expect(resultText(result as never)).toBe('count is 3');
    expect(progress).toEqual([1, 2]);
    await close();
  });

  it('answers bad arguments with isError naming the argument', async () => {
    const { call, close } = await connectInMemory(serverWith({ count: 0 }));
    const tooBig = await call('add', { by: 50 });
    expect(tooBig.isError).toBe(true);
    expect(resultText(tooBig)).toMatch(/Invalid arguments for add: `by`: .*10/);
    const missing = await call('add', {});
    expect(resultText(missing)).toMatch(/`by`/);
    const unknown = await call('add', { by: 1, amount: 2 });
    expect(resultText(unknown)).toMatch(/unknown argument `amount`: this tool takes by/);
    await close();
  });

  it('turns every handler failure into an isError result and keeps serving', async () => {
    const engine = { count: 0 };
    const { call, close } = await connectInMemory(serverWith(engine));
    expect(resultText(await call('fail', { how: 'tool' }))).toBe('Nothing there: try another name.');
    const crash = await call('fail', { how: 'crash' });
    expect(crash.isError).toBe(true);
    expect(resultText(crash)).toMatch(
      /fail failed unexpectedly: cannot read properties of undefined.*still running/,
    );
    expect((await call('fail', { how: 'bad-output' })).isError).toBe(true);
    expect((await call('add', { by: 1 })).structuredContent).toEqual({ count: 1 });
    await close();
  });

  it('puts extra content blocks before the text rendering', async () => {
    const { call, close } = await connectInMemory(serverWith({ count: 0 }));
    const result = await call('picture');
    expect(result.content.map((block) => block.type)).toEqual(['image', 'text']);
    await close();
  });

  it('answers an unknown tool with a protocol error that lists the tools', async () => {
    const { client, close } = await connectInMemory(serverWith({ count: 0 }));
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(
      /Unknown tool "nope".*add, fail/,
    );
    await close();
  });

  it('adds workspace_id to workspace-scoped tools and checks it against the served workspaces', async () => {
    const scoped = (workspaces: string[]) =>
      createToolServer({
        name: 'scoped',
        version: '1.0.0',
        tools: [whoami],
        engine: { count: 0 },
        log: createLogger({ level: 'error', sink: () => undefined }),
        scope: { workspaces, identity: 'cli-agent' },
      });
    const one = await connectInMemory(scoped(['alpha']));
    const { tools } = await one.client.listTools();
    expect(tools[0]?.inputSchema.properties).toHaveProperty('workspace_id');
    expect((await one.call('whoami')).structuredContent).toEqual({
      identity: 'cli-agent',
      workspace: 'alpha',
    });
    const stranger = await one.call('whoami', { workspace_id: 'beta' });
    expect(stranger.isError).toBe(true);
    expect(resultText(stranger)).toMatch(/workspace "beta" is not served here: use one of "alpha"/);
    await one.close();

    const two = await connectInMemory(scoped(['alpha', 'beta']));
    expect(resultText(await two.call('whoami'))).toMatch(/workspace_id is required here: .*"alpha", "beta"/);
    const asAgent = await two.client.callTool({
      name: 'whoami',
      arguments: { workspace_id: 'beta' },
      _meta: { [META_KEYS.agent]: 'planner' },
    });
    // A process started with --agent serves that identity only, whatever the client claims.
    expect(asAgent.structuredContent).toEqual({ identity: 'cli-agent', workspace: 'beta' });
    await two.close();

    const unpinned = await connectInMemory(
      createToolServer({
        name: 'unpinned',
        version: '1.0.0',
        tools: [whoami],
        engine: { count: 0 },
        log: createLogger({ level: 'error', sink: () => undefined }),
        scope: { workspaces: ['alpha'] },
      }),
    );
    const named = await unpinned.client.callTool({ name: 'whoami', _meta: { [META_KEYS.agent]: 'planner' } });
    expect(named.structuredContent).toEqual({ identity: 'planner', workspace: 'alpha' });
    expect((await unpinned.call('whoami')).structuredContent).toEqual({
      identity: 'anonymous',
      workspace: 'alpha',
    });
    await unpinned.close();
  });

  it('answers a 2026-07-28 client over HTTP past the SDK, as the SDK answers it', async () => {
    expect(answersPastTheSdk(serverWith({ count: 0 }))).toBe(true);
    const front = await startHttpFront({
      createServer: () => serverWith({ count: 0 }),
      modernEra: true,
      host: '127.0.0.1',
      port: 0,
      log: createLogger({ level: 'error', sink: () => undefined }),
    });
    const modern = await connectModernHttpClient(front.url);
    const legacy = await connectInMemory(serverWith({ count: 0 }));
    try {
      // Each a separate engine: the counter starts at 0 for both.
      const calls: [string, Record<string, unknown>][] = [
        ['add', { by: 3 }],
        ['add', { by: 50 }],
        ['add', { by: 1, amount: 2 }],
        ['fail', { how: 'tool' }],
        ['fail', { how: 'crash' }],
        ['picture', {}],
      ];
      for (const [name, args] of calls) {
        // The 2026-07-28 revision names the server on each result; the rest is the same.
        const { _meta, ...answered } = await modern.call(name, args);
        expect(_meta).toEqual({
          'io.modelcontextprotocol/serverInfo': { name: 'counter', version: '1.0.0' },
        });
        expect(answered, `${name} ${JSON.stringify(args)}`).toEqual(await legacy.call(name, args));
      }
      await expect(modern.call('nope', {})).rejects.toThrow(/Unknown tool "nope".*add, fail/);
    } finally {
      await modern.close();
      await legacy.close();
      await front.close();
    }
  });

  it('refuses tool names that clients would reject', () => {
    expect(() => defineTool({ ...add, name: 'has space' })).toThrow(/must be 1-64 characters/);
  });
});
