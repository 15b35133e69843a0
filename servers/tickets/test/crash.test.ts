import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteTicketStore } from '../src/store/sqlite-store.js';
import { tempDir } from './fixture.js';

const SERVER = pathToFileURL(fileURLToPath(new URL('../dist/server.js', import.meta.url))).href;
let dir: string;

beforeAll(() => {
  dir = tempDir('toolmesh-tickets-crash-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a writer killed mid-burst', () => {
  it('keeps every acknowledged write and a sound database', async () => {
    const db = path.join(dir, 'crash.db');
    const script = path.join(dir, 'writer.mjs');
    // Acknowledges each ticket on stdout only after create() returned, i.e. after its commit.
    writeFileSync(
      script,
      `import { SqliteTicketStore } from ${JSON.stringify(SERVER)};
const store = new SqliteTicketStore(${JSON.stringify(db)});
const actor = { workspace: 'w', identity: 'writer' };
for (let i = 0; ; i++) {
  const [t] = store.create(actor, [{ title: 'burst ' + i, description: 'x'.repeat(2000) }]);
  store.comment(actor, t.id, 'comment ' + i);
  process.stdout.write(t.id + '\\n');
}
`,
    );
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        if (stdout.split('\n').length > 200) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.once('exit', () => reject(new Error(`writer exited early: ${stderr}`)));
    });
    await exited;
    const acknowledged = stdout.split('\n').filter((line) => /^T-\d+$/.test(line));
    expect(acknowledged.length).toBeGreaterThanOrEqual(200);
    const store = new SqliteTicketStore(db);
    try {
      expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
      const present = new Set(store.list('w', { sort: 'number' }).tickets.map((t) => t.id));
      for (const id of acknowledged) {
        expect(present.has(id)).toBe(true);
        expect(store.get('w', id).comments).toHaveLength(1);
      }
      // A write after the crash continues the numbering instead of reusing an id.
      const [next] = store.create({ workspace: 'w', identity: 'after' }, [{ title: 'after the crash' }]);
      expect(Number(next?.id.slice(2))).toBe(present.size + 1);
    } finally {
      store.shutdown();
    }
  });
});
