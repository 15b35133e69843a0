import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { openDatabase } from '@toolmesh/core';
import { connectInMemory } from '@toolmesh/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CodeGraph, databaseFileFor } from '../src/graph/code-graph.js';
import { GRAPH_MIGRATIONS } from '../src/graph/schema.js';
import { createCodeGraphServer } from '../src/server.js';
import { quietLog } from './fixture-graph.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const run = promisify(execFile);

const FILES = {
  'shop/helper.py': 'class Helper:\n    def run(self):\n        return 1\n',
  'shop/box.py':
    'from shop.helper import Helper\n\nclass Box:\n    def __init__(self):\n        self.helper: Helper = Helper()\n\n    def value(self):\n        return self.helper.run()\n',
  'shop/main.py': 'from shop.box import Box\n\ndef main():\n    return Box().value()\n',
};

let base: string;
let root: string;
let dataDir: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-code-graph-failures-')));
  root = path.join(base, 'project');
  dataDir = path.join(base, 'data');
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function cli(...args: string[]) {
  return run(process.execPath, [BIN, ...args, '--root', root, '--no-precise'], {
    env: { ...process.env, TOOLMESH_DATA_DIR: dataDir },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

/** Edits the graph database of `root` directly, as a crash, an older version or a full disk would leave it. */
function editDatabase(edit: (db: ReturnType<typeof openDatabase>) => void): void {
  const db = openDatabase(databaseFileFor(dataDir, root), GRAPH_MIGRATIONS);
  try {
    edit(db);
  } finally {
    db.close();
  }
}

describe('a file that cannot be indexed', () => {
  it('is recorded and left out, the rest resolved; index_status and the CLI say which and why', async () => {
    expect((await cli('status')).code).toBe(0);
    // Stored facts the resolver cannot read, left by a run that stopped before resolving.
    editDatabase((db) => {
      db.prepare(`UPDATE files SET facts = json_set(facts, '$.calls', json('null')) WHERE path = ?`).run(
        'shop/main.py',
      );
      db.prepare(`UPDATE meta SET value = '1' WHERE key = 'resolving'`).run();
    });
    const status = await cli('status');
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/: ready except 1 file that could not be indexed, 3 files/);
    expect(status.stdout).toMatch(/not indexed \(resolve\): shop\/main\.py: .*not iterable/);
    const callers = await cli('callers', 'Helper.run');
    expect(callers.code).toBe(0);
    expect(callers.stdout).toContain('Box.value  shop/box.py:8 (field)');
    expect(callers.stderr).toContain('1 file could not be indexed (shop/main.py)');

    const graph = new CodeGraph({ roots: [root], dataDir, log: quietLog, watch: false, precise: false });
    await graph.ready();
    const client = await connectInMemory(createCodeGraphServer({ graph, log: quietLog }));
    try {
      const answer = (await client.call('index_status')) as CallToolResult;
      expect(answer.structuredContent).toMatchObject({
        roots: [
          {
            phase: 'ready',
            failedFileCount: 1,
            failedFiles: [{ path: 'shop/main.py', stage: 'resolve' }],
          },
        ],
      });
      const symbol = (await client.call('code_symbol', { name: 'Box' })) as CallToolResult;
      expect(symbol.structuredContent).toMatchObject({
        indexComplete: true,
        note: expect.stringContaining('1 file could not be indexed (shop/main.py)'),
      });
      // Once the file changes it is read again, and nothing is left out.
      writeFileSync(path.join(root, 'shop/main.py'), `${FILES['shop/main.py']}\n`);
      await graph.reindex();
      expect(graph.roots[0]?.index.failedFiles()).toEqual([]);
      expect((await cli('callers', 'Box.value')).stdout).toContain('main  shop/main.py:4');
    } finally {
      await client.close();
      await graph.close();
    }
  });

  it('makes the CLI exit non-zero, saying why, when the first index itself fails', async () => {
    expect((await cli('status')).code).toBe(0);
    writeFileSync(path.join(root, 'shop/extra.py'), 'def extra():\n    return 2\n');
    editDatabase((db) =>
      db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON files BEGIN SELECT RAISE(ABORT, 'disk says no'); END`),
    );
    const status = await cli('status');
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/: failed \(first index not finished\)/);
    expect(status.stderr).toContain(`indexing ${root} failed: disk says no`);
  });
});
