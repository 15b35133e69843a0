import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

/** The built rigs server, run behind the aggregator over real stdio. */
const RIGS_BIN = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@toolmesh/server-rigs/package.json')),
  'dist',
  'index.js',
);

/** The tools that drive a machine: enclosureControl, networkEgress, processSpawn (and packageInstall). */
const USE_TOOLS = ['rigs__browser_use', 'rigs__computer_use', 'rigs__mobile_use', 'rigs__ios_use'];

let harness: Harness;
let page: http.Server;
let origin: string;

beforeAll(async () => {
  page = http.createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end('<title>Approved page</title><h1>hi</h1>'),
  );
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
  harness = await startHarness({});
  await harness.reload(
    (await import('../src/config/load.js')).parseConfig({
      mcpServers: {
        rigs: {
          command: process.execPath,
          args: [RIGS_BIN, '--allow-origin', origin],
          env: { TOOLMESH_DATA_DIR: path.join(harness.folder, 'data') },
        },
      },
      modes: { drive: { confirm: { actions: ['enclosureControl'] } } },
      approvalTimeoutMs: 60_000,
    }),
  );
});

afterAll(async () => {
  await harness?.close();
  await new Promise((resolve) => page?.close(resolve));
});

async function listed(mode: string): Promise<string[]> {
  const { client } = await harness.connect({ mode });
  return (await client.listTools()).tools
    .map((tool) => tool.name)
    .filter((name) => name.startsWith('rigs__'));
}

describe('rigs behind the aggregator', () => {
  it('lists every rigs tool in chat, with the action classes the modes read', async () => {
    const { client } = await harness.connect({ mode: 'chat' });
    const tools = (await client.listTools()).tools.filter((tool) => tool.name.startsWith('rigs__'));
    const classes = Object.fromEntries(tools.map((tool) => [tool.name, tool._meta?.['toolmesh/actions']]));
    expect(classes).toEqual({
      rigs__browser_use: ['enclosureControl', 'networkEgress', 'processSpawn'],
      rigs__computer_use: ['enclosureControl', 'networkEgress', 'processSpawn'],
      rigs__mobile_use: ['enclosureControl', 'networkEgress', 'processSpawn', 'packageInstall'],
      rigs__ios_use: ['enclosureControl', 'networkEgress', 'processSpawn', 'packageInstall'],
      rigs__rig_list: ['read'],
      rigs__rig_close: ['enclosureControl'],
    });
  });

  it.each(['plan', 'review', 'orchestrate'])(
    'in %s mode lists and allows rig_list only, and refuses the use tools naming the class',
    async (mode) => {
      expect(await listed(mode)).toEqual(['rigs__rig_list']);
      const { call } = await harness.connect({ mode });
      for (const name of [...USE_TOOLS, 'rigs__rig_close']) {
        const refused = await call(name, { action: 'screenshot', rig_id: 'rig-00000000' });
        expect(refused.isError, name).toBe(true);
        expect(resultText(refused)).toMatch(
          new RegExp(`^${name} is blocked in ${mode} mode: mode ${mode} (denies|allows only)`),
        );
      }
      const rigs = await call('rigs__rig_list', {});
      expect(rigs.isError).toBeFalsy();
      expect(rigs.structuredContent).toMatchObject({ rigs: [] });
    },
  );

  it('asks a person first in a mode that confirms enclosureControl: declined starts nothing, accepted drives', {
    timeout: 120_000,
  }, async () => {
    const connect = async (action: 'accept' | 'decline') => {
      const connected = await harness.connect({ capabilities: { elicitation: { form: {} } }, mode: 'drive' });
      const asked: string[] = [];
      connected.client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(request.params.message);
        return { action, ...(action === 'accept' && { content: {} }) };
      });
      return { ...connected, asked };
    };
    const declining = await connect('decline');
    const url = `${origin}/`;
    const declined = await declining.call('rigs__browser_use', { action: 'navigate', url });
    expect(resultText(declined)).toBe('rigs__browser_use was declined by the user; it did not run.');
    expect(declining.asked[0]).toMatch(/mode drive asks for approval of the action class enclosureControl/);
    expect((await declining.call('rigs__rig_list', {})).structuredContent).toMatchObject({ rigs: [] });
    expect(declining.asked).toHaveLength(1);

    const accepting = await connect('accept');
    const driven = await accepting.call('rigs__browser_use', { action: 'navigate', url });
    expect(driven.isError, resultText(driven)).toBeFalsy();
    expect(resultText(driven)).toContain('title: Approved page');
    expect(accepting.asked).toHaveLength(1);
    const { rigs } = (await accepting.call('rigs__rig_list', {})).structuredContent as {
      rigs: { id: string }[];
    };
    expect(rigs).toHaveLength(1);
    expect((await accepting.call('rigs__rig_close', { rig_id: rigs[0]?.id })).isError).toBeFalsy();
    expect(accepting.asked).toHaveLength(2);
  });
});
