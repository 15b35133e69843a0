import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@toolmesh/core';
import { connectInMemory } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Aggregator, type AggregatorOptions } from '../src/aggregator.js';
import { parseConfig } from '../src/config/load.js';
import { SqliteState } from '../src/state/sqlite-state.js';
import { CatalogueCache } from '../src/upstream/catalogue-cache.js';
import { FIXTURE_SERVER, until } from './harness.js';

let folder: string;
let starts: string;
let state: SqliteState;

beforeAll(() => {
  folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-hold-')));
  starts = path.join(folder, 'echoes.starts');
  state = SqliteState.open(path.join(folder, 'state.sqlite'));
});
afterAll(async () => {
  await state.close();
  rmSync(folder, { recursive: true, force: true });
});

const startsSoFar = () =>
  existsSync(starts) ? readFileSync(starts, 'utf8').split('\n').filter(Boolean).length : 0;

/** An aggregator over one fixture server that notes each of its starts, with its catalogue cache in the folder. */
function options(): AggregatorOptions {
  const loaded = parseConfig({
    mcpServers: {
      echoes: {
        command: 'sh',
        args: ['-c', `echo started >> "${starts}"; exec "$0" "$@"`, process.execPath, FIXTURE_SERVER],
        env: { FIXTURE_NAME: 'echoes' },
      },
    },
  });
  return {
    config: loaded.config,
    servers: loaded.servers,
    state,
    log: createLogger({ level: 'error' }),
    upstream: { pingIntervalMs: 0 },
    catalogueCache: new CatalogueCache(path.join(folder, 'catalogues.json')),
    listFromCache: true,
  };
}

describe('servers held for the first tools/list (toolmesh serve over stdio)', () => {
  it('start once the answer has left the process, not when it is only sent', async () => {
    const first = await Aggregator.start(options());
    await first.stop();
    expect(startsSoFar()).toBe(1);

    // The process's output, as the test lets it drain: a client that has not read the answer yet.
    let drain: (() => void) | undefined;
    const second = Aggregator.launch({
      ...options(),
      startServersAfterFirstList: {
        outputDrained: () => new Promise<void>((resolve) => (drain = resolve)),
        holdMs: 600_000,
      },
    });
    const client = await connectInMemory(second.createSessionServer({}));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echoes__echo');
      await until(() => drain !== undefined);
      expect(second.upstreams.get('echoes')?.state).not.toBe('ready');
      expect(startsSoFar()).toBe(1);
      drain?.();
      await until(() => startsSoFar() === 2 && second.upstreams.get('echoes')?.state === 'ready');
    } finally {
      await client.close();
      await second.stop();
    }
  });
});
