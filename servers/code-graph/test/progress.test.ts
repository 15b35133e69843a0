import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { connectInMemory } from '@toolmesh/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CodeGraph } from '../src/graph/code-graph.js';
import { createCodeGraphServer } from '../src/server.js';
import { copyFixture, type FixtureCopy, quietLog } from './fixture-graph.js';

let copy: FixtureCopy;
beforeEach(() => {
  copy = copyFixture('ts-shop');
});
afterEach(() => copy.remove());

describe('a long index says how far it is', () => {
  it('in lines to the log (or a pipe), at most one per interval', async () => {
    const lines: string[] = [];
    // An interval of 0 says every step; the default is a line every few seconds.
    const graph = new CodeGraph({
      roots: [copy.root],
      dataDir: copy.dataDir,
      log: quietLog,
      watch: false,
      precise: false,
      progress: { say: (line) => lines.push(line), everyMs: 0 },
    });
    try {
      await graph.ready();
      expect(lines).toContain(`indexing ${copy.root}: scanning`);
      expect(lines).toContain(`indexing ${copy.root}: parsing 6/6 files`);
      expect(lines).toContain(`indexing ${copy.root}: resolving 6/6 files`);
    } finally {
      await graph.close();
    }
  });

  it('in MCP progress notifications to a client whose call waits on the first index', async () => {
    const graph = new CodeGraph({
      roots: [copy.root],
      dataDir: copy.dataDir,
      log: quietLog,
      watch: false,
      precise: false,
      progress: false,
    });
    const client = await connectInMemory(createCodeGraphServer({ graph, log: quietLog }));
    try {
      // The index's queue is held until the call waits on it, so the first index cannot end before.
      let release: () => void = () => undefined;
      const held = graph.roots[0]?.index.runExclusive(
        () => new Promise<void>((resolve) => (release = resolve)),
      );
      const first = graph.start();
      const notified: Progress[] = [];
      const call = client.client.callTool({ name: 'reindex', arguments: {} }, CallToolResultSchema, {
        onprogress: (progress) => notified.push(progress),
      });
      // Requests are handled in order: once this one is answered, reindex is waiting.
      await client.call('index_status');
      release();
      await held;
      const result = await call;
      await first;
      expect(result.isError).toBeFalsy();
      expect(notified[0]).toMatchObject({
        progress: 6,
        total: 6,
        message: `${copy.root}: parsing 6/6 files`,
      });
      // The reindex's own run follows, counted on from the first: progress only grows.
      expect(notified.at(-1)).toMatchObject({ progress: 12, total: 12 });
      const values = notified.map((each) => each.progress);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(new Set(values).size).toBe(values.length);
    } finally {
      await client.close();
      await graph.close();
    }
  });
});
