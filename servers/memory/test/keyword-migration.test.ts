import path from 'node:path';
import { openDatabase } from '@toolmesh/core';
import { afterEach, describe, expect, it } from 'vitest';
import { MEMORY_MIGRATIONS } from '../src/store/migrations.js';
import { type MemoryFixture, memoryFixture, tempDir } from './fixture.js';

let m: MemoryFixture | undefined;
afterEach(async () => {
  await m?.close();
});

describe('migration from the keyword index shared by every workspace', () => {
  it('splits a version-1 file into one index per workspace, counted, and keeps indexing new entries', async () => {
    const file = path.join(tempDir(), 'memory.db');
    // The file as the first schema wrote it: entries of two workspaces in one FTS5 index.
    const old = openDatabase(file, MEMORY_MIGRATIONS.slice(0, 1));
    const domain = old.prepare(
      "INSERT INTO domains (workspace, name, creator, created_at) VALUES (?, 'general', 'old', '2026-01-01T00:00:00.000Z')",
    );
    const alphaDomain = Number(domain.run('alpha').lastInsertRowid);
    const betaDomain = Number(domain.run('beta').lastInsertRowid);
    const entry = old.prepare(
      `INSERT INTO memories (workspace, kind, domain_id, body, body_key, author, valid_from, recorded_at)
       VALUES (?, 'fact', ?, ?, lower(?), 'old', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
    );
    const index = old.prepare('INSERT INTO memories_fts (rowid, body) VALUES (?, ?)');
    for (const [workspace, domainId, body] of [
      ['alpha', alphaDomain, 'Backups run at midnight'],
      ['alpha', alphaDomain, 'The staging database is rebuilt weekly'],
      ['beta', betaDomain, 'Backups are kept for ninety days'],
    ] as const) {
      const id = entry.run(workspace, domainId, body, body).lastInsertRowid;
      index.run(id, body);
    }
    old.close();

    m = await memoryFixture({ file });
    const bodies = async (workspace: string, query: string) =>
      (
        await m!.ok<{ hits: { body: string }[] }>('search_memory', {
          workspace_id: workspace,
          query,
          mode: 'keyword',
        })
      ).hits.map((hit) => hit.body);
    expect(await bodies('alpha', 'backup')).toEqual(['Backups run at midnight']);
    expect(await bodies('beta', 'backup')).toEqual(['Backups are kept for ninety days']);
    expect(await bodies('alpha', 'databases')).toEqual(['The staging database is rebuilt weekly']);
    const db = openDatabase(file, MEMORY_MIGRATIONS);
    try {
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'memories_fts'").get()).toBeUndefined();
      expect(db.prepare('SELECT workspace, rows FROM keyword_indexes ORDER BY workspace').all()).toEqual([
        { workspace: 'alpha', rows: 2 },
        { workspace: 'beta', rows: 1 },
      ]);
    } finally {
      db.close();
    }
    // Entries written after the migration are indexed and counted beside the migrated ones.
    await m.ok('propose_fact', { workspace_id: 'alpha', statement: 'Backups are encrypted at rest' });
    expect((await bodies('alpha', 'backups')).sort()).toEqual([
      'Backups are encrypted at rest',
      'Backups run at midnight',
    ]);
  });
});
