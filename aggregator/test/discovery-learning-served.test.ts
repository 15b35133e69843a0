import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/load.js';
import { SqliteAssociationStore } from '../src/state/association-store.js';
import { fixture, type Harness, startHarness } from './harness.js';

let harness: Harness;
const raw = { mcpServers: { fixture: fixture('fixture'), other: fixture('other') } };

beforeAll(async () => {
  harness = await startHarness(raw);
});
afterAll(async () => {
  await harness.close();
});

const names = (answer: unknown) =>
  ((answer as { structuredContent: { results: { name: string }[] } }).structuredContent.results ?? []).map(
    (hit) => hit.name,
  );

describe('search_tool_bm25 learning from the tools sessions call', () => {
  it('ties a session’s search words to the tool it called, keeps them in discovery.sqlite, never its arguments', async () => {
    const { call } = await harness.connect();
    const before = names(await call('search_tool_bm25', { query: 'parrot my sentence', limit: 3 }));
    expect(before).not.toContain('fixture__echo');
    expect(names(await call('search_tool_bm25', { query: 'echo text', limit: 3 }))).toContain(
      'fixture__echo',
    );
    await call('call_tool', { name: 'fixture__echo', arguments: { text: 'secret-value-4711' } });

    const { call: later } = await harness.connect();
    expect(names(await later('search_tool_bm25', { query: 'parrot my sentence', limit: 3 }))[0]).toBe(
      'fixture__echo',
    );

    const store = SqliteAssociationStore.besideState(path.join(harness.folder, 'state.sqlite'));
    const kept = await store.all();
    await store.close();
    expect(kept.map((row) => `${row.term}→${row.tool}`)).toEqual(
      expect.arrayContaining(['parrot→fixture__echo', 'sentenc→fixture__echo', 'echo→fixture__echo']),
    );
    expect(JSON.stringify(kept)).not.toMatch(/secret|4711/);
  });

  it('neither learns nor lifts when discovery.learnFromUse is false, and forgets all when cleared', async () => {
    const off = parseConfig({ ...raw, discovery: { learnFromUse: false } });
    await harness.reload({ config: off.config, servers: off.servers });
    const { call } = await harness.connect();
    expect(names(await call('search_tool_bm25', { query: 'parrot my sentence', limit: 3 }))).not.toContain(
      'fixture__echo',
    );
    expect(names(await call('search_tool_bm25', { query: 'shout back', limit: 5 }))).toContain(
      'fixture__echo',
    );
    await call('call_tool', { name: 'fixture__echo', arguments: { text: 'x' } });

    const on = parseConfig(raw);
    await harness.reload({ config: on.config, servers: on.servers });
    expect(harness.aggregator.learning.associations?.pull(['shout'], Date.now()).size).toBe(0);
    expect(harness.aggregator.learning.associations?.pull(['parrot'], Date.now()).size).toBe(1);
    await harness.aggregator.learning.clear();
    expect(harness.aggregator.learning.associations?.size).toBe(0);
    const store = SqliteAssociationStore.besideState(path.join(harness.folder, 'state.sqlite'));
    expect(await store.all()).toEqual([]);
    await store.close();
  });
});

describe('search_tool_bm25 learning only from calls that go ahead', () => {
  it('learns nothing from a call the mode denies, and credits the session’s searches to the tool it then runs', async () => {
    const denying = parseConfig({
      ...raw,
      modes: { chat: { deny: { tools: ['fixture__echo'] } } },
    });
    await harness.reload({ config: denying.config, servers: denying.servers });
    await harness.aggregator.learning.clear();
    const { call } = await harness.connect();
    expect(names(await call('search_tool_bm25', { query: 'echo text back', limit: 5 }))).toContain(
      'fixture__echo',
    );
    const denied = (await call('call_tool', { name: 'fixture__echo', arguments: { text: 'x' } })) as {
      isError?: boolean;
    };
    expect(denied.isError).toBe(true);
    expect(harness.aggregator.learning.associations?.size).toBe(0);

    // The denied call did not end the trail: the next search and the call that runs are credited with both.
    expect(names(await call('search_tool_bm25', { query: 'who is the caller', limit: 5 }))).toContain(
      'fixture__whoami',
    );
    await call('call_tool', { name: 'fixture__whoami', arguments: {} });
    expect([...harness.aggregator.learning.associations!.pull(['echo'], Date.now()).keys()]).toEqual([
      'fixture__whoami',
    ]);
  });
});

describe('toolmesh discovery forget', () => {
  it('forgets what was learnt in the data directory, and says how much', async () => {
    const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const data = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-forget-'));
    try {
      const store = SqliteAssociationStore.open(path.join(data, 'aggregator', 'discovery.sqlite'));
      await store.put([
        { term: 'park', tool: 'git__git_stash', strength: 1, at: 0 },
        { term: 'shelv', tool: 'git__git_stash', strength: 2, at: 0 },
      ]);
      await store.close();
      const run = (...args: string[]) =>
        promisify(execFile)(process.execPath, [bin, ...args], {
          env: { ...process.env, TOOLMESH_DATA_DIR: data },
          timeout: 120_000,
        }).catch((error: { code: number; stderr: string }) => error);
      expect(await run('discovery', 'forget')).toMatchObject({
        stdout: 'forgot 2 learnt links between search words and tools\n',
      });
      const after = SqliteAssociationStore.open(path.join(data, 'aggregator', 'discovery.sqlite'));
      expect(await after.all()).toEqual([]);
      await after.close();
      expect(await run('discovery', 'remember')).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/forget/),
      });
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});
