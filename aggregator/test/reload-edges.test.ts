import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/load.js';
import { fixture, type Harness, serveToolmesh, startHarness, until } from './harness.js';

let scratch: Harness;
beforeAll(async () => {
  scratch = await startHarness({ mcpServers: { kept: fixture('kept'), gone: fixture('gone') } });
});
afterAll(() => scratch.close());

const servers = (names: string[]) =>
  JSON.stringify({ mcpServers: Object.fromEntries(names.map((name) => [name, fixture(name)])) });

describe('config reload', () => {
  it('follows a config reached through a symlink when the file it points at is saved', async () => {
    const real = path.join(scratch.folder, 'dotfiles');
    mkdirSync(real);
    const target = path.join(real, 'toolmesh-real.json');
    const link = path.join(scratch.folder, 'toolmesh-linked.json');
    writeFileSync(target, servers(['first']));
    symlinkSync(target, link);
    const serving = serveToolmesh(['--config', link, '--transport', 'http', '--port', '0'], scratch.folder);
    try {
      const client = await serving.connect();
      writeFileSync(target, servers(['first', 'second']));
      await until(async () =>
        (await client.client.listTools()).tools.some(({ name }) => name === 'second__echo'),
      );
      expect(resultText(await client.call('second__echo', { text: 'linked' }))).toBe('second: linked');
      await client.close();
    } finally {
      serving.child.kill('SIGTERM');
    }
  });

  it('is not what SIGHUP does without a config file: toolmesh says so and keeps serving', async () => {
    const bare = path.join(scratch.folder, 'no-config');
    mkdirSync(bare);
    const serving = serveToolmesh(['--transport', 'http', '--port', '0'], bare);
    try {
      await serving.url;
      serving.child.kill('SIGHUP');
      await until(() => /SIGHUP: no config file to reload/.test(serving.stderr()));
      const client = await serving.connect();
      expect((await client.client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
      expect(serving.child.exitCode).toBeNull();
    } finally {
      serving.child.kill('SIGTERM');
    }
  });

  it('tells a call cut off by the removal of its server that the server was removed, not to retry', async () => {
    const { call } = await scratch.connect();
    const pending = call('gone__hang');
    await until(() => scratch.logs.some((line) => line.includes('hang: started')));
    await scratch.aggregator.reload(parseConfig({ mcpServers: { kept: fixture('kept') } }));
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(
      /gone__hang was cut off: its server gone was removed from toolmesh's config or reconfigured while the call ran/,
    );
  });
});

describe('a server whose tool names collide with a running one’s', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ mcpServers: { a_b: fixture('underscore') } });
  });
  afterAll(() => harness.close());

  it('does not take a name a client already uses: a_b__echo stays with a_b when a.b is added', async () => {
    const { call } = await harness.connect();
    expect(resultText(await call('a_b__echo', { text: 'x' }))).toBe('underscore: x');
    await harness.aggregator.reload(
      parseConfig({ mcpServers: { a_b: fixture('underscore'), 'a.b': fixture('dot') } }),
    );
    const collision = () =>
      harness.aggregator.registry.collisions.find(({ exposed }) => exposed === 'a_b__echo');
    await until(() => collision() !== undefined);
    expect(resultText(await call('a_b__echo', { text: 'x' }))).toBe('underscore: x');
    const renamed = collision();
    expect(renamed?.renamed).toMatchObject({ server: 'a.b', name: 'echo' });
    expect(resultText(await call(renamed?.renamed.as as string, { text: 'x' }))).toBe('dot: x');
  });
});
