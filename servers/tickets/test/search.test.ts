import { rmSync } from 'node:fs';
import path from 'node:path';
import { CHEAP_TO_RANK, NEWEST_FIRST_NOTE, openDatabase } from '@toolmesh/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TICKET_MIGRATIONS } from '../src/store/migrations.js';
import { SqliteTicketStore } from '../src/store/sqlite-store.js';
import { tempDir } from './fixture.js';

let dir: string;
let store: SqliteTicketStore | undefined;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => {
  store?.shutdown();
  store = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const alpha = { workspace: 'alpha', identity: 'tester' };
const beta = { workspace: 'beta', identity: 'tester' };
const ids = (hits: { ticket: { id: string } }[]) => hits.map((h) => h.ticket.id);

/** The kept term counts of every workspace's table, and the counts FTS5 itself reads from it. */
function termCounts(db: SqliteTicketStore['db']) {
  const kept: Record<string, number>[] = [];
  const actual: Record<string, number>[] = [];
  for (const id of db.prepare('SELECT id FROM search_indexes ORDER BY id').pluck().all() as number[]) {
    db.exec(`CREATE VIRTUAL TABLE temp.check_terms USING fts5vocab(main, tickets_fts_${id}, row)`);
    const rows = (sql: string) =>
      Object.fromEntries((db.prepare(sql).raw().all(id) as [string, number][]).map(([t, n]) => [t, n]));
    kept.push(rows('SELECT term, docs FROM search_terms WHERE index_id = ? ORDER BY term'));
    actual.push(rows('SELECT term, doc FROM temp.check_terms WHERE ? IS NOT NULL ORDER BY term'));
    db.exec('DROP TABLE temp.check_terms');
  }
  return { kept, actual };
}

describe('search stemming', () => {
  it('finds other forms of a word in search and in the list text filter', () => {
    store = new SqliteTicketStore(path.join(dir, 'tickets.db'));
    store.create(alpha, [
      { title: 'Memory leaks under load' },
      { title: 'Cache', description: 'the workers were leaking handles' },
      { title: 'Unrelated' },
    ]);
    store.comment(alpha, 'T-3', 'this one leaked once');
    expect(ids(store.search('alpha', 'leak', 10).hits)).toEqual(['T-1', 'T-2', 'T-3']);
    expect(store.list('alpha', { text: 'leak' }).tickets.map((t) => t.id)).toEqual(['T-1', 'T-2']);
    expect(store.list('alpha', { text: 'leak memories' }).tickets.map((t) => t.id)).toEqual(['T-1']);
    expect(store.list('beta', { text: 'leak' })).toEqual({ total: 0, totalAtLeast: false, tickets: [] });
    expect(() => store?.list('alpha', { text: '%%' })).toThrow(/no words/);
  });
});

describe('per-workspace term statistics', () => {
  it("scores a workspace's tickets the same however often another workspace uses the word", () => {
    store = new SqliteTicketStore(path.join(dir, 'tickets.db'));
    store.create(beta, [{ title: 'parser crash' }, { title: 'renderer' }, { title: 'linker' }]);
    const before = store.search('beta', 'parser', 10).hits;
    store.create(
      alpha,
      Array.from({ length: 40 }, (_, i) => ({ title: `parser ticket ${i}` })),
    );
    const after = store.search('beta', 'parser', 10).hits;
    expect(ids(after)).toEqual(['T-1']);
    expect(after[0]?.score).toBe(before[0]?.score);
    expect(store.search('alpha', 'parser', 50).hits).toHaveLength(40);
  });
});

describe('term counts and words without weight', () => {
  it("keeps each workspace's term counts equal to its index through creates, edits, comments and dry runs", () => {
    store = new SqliteTicketStore(path.join(dir, 'tickets.db'));
    store.create(alpha, [
      { title: 'Upload leaks memory', description: 'under load' },
      { title: 'Upload is slow' },
    ]);
    store.create(beta, [{ title: 'Memory of the cache' }]);
    store.update(alpha, 'T-1', { title: 'Upload leaked handles', description: 'only at night' });
    store.comment(alpha, 'T-2', 'slow again, leaking too');
    store.comment(alpha, 'T-2', 'still slow');
    store.create(alpha, [{ title: 'never written' }], { dryRun: true });
    const { kept, actual } = termCounts(store.db);
    expect(kept).toEqual(actual);
    expect(kept[0]).toMatchObject({ upload: 2, leak: 2, slow: 1, night: 1 });
    expect(kept[0]).not.toHaveProperty('written');
    expect(kept[0]).not.toHaveProperty('load');
  });

  it('ranks by the words that weigh and filters by those in half the tickets or more', () => {
    store = new SqliteTicketStore(path.join(dir, 'tickets.db'));
    store.create(alpha, [
      { title: 'rare common' },
      { title: 'rare alone' },
      { title: 'rare rare common words' },
      // Enough that "common", in all but one, is also too many tickets to score cheaply.
      ...Array.from({ length: 2 * CHEAP_TO_RANK }, (_, i) => ({ title: `common filler ${i}` })),
    ]);
    const hits = store.search('alpha', 'rare common', 10).hits;
    expect(ids(hits)).toEqual(['T-3', 'T-1']);
    // The same tickets, in the same order, as bm25 over every word, with scores as close as its 1e-6 weight.
    const full = store.db
      .prepare(
        `SELECT rowid AS id, bm25(tickets_fts_1, 10.0, 3.0, 1.0) AS score FROM tickets_fts_1
         WHERE tickets_fts_1 MATCH '"rare" "common"' ORDER BY score`,
      )
      .all() as { id: number; score: number }[];
    expect(full.map((row) => `T-${row.id}`)).toEqual(ids(hits));
    expect(hits.map((hit) => hit.score)).toEqual(full.map((row) => expect.closeTo(-row.score, 4)));
    expect(store.search('alpha', 'common', 3)).toMatchObject({ note: NEWEST_FIRST_NOTE });
    expect(ids(store.search('alpha', 'common', 3).hits)).toEqual(['T-2003', 'T-2002', 'T-2001']);
    expect(ids(store.search('alpha', 'alone common', 10).hits)).toEqual([]);
    expect(ids(store.search('alpha', 'common rare', 1).hits)).toEqual(['T-3']);
  });

  it('finds the best tickets holding the common words when the best ranked ones lack them', () => {
    store = new SqliteTicketStore(path.join(dir, 'tickets.db'));
    // "cluster" in four tickets of five; "rollback" in the titles of tickets without it, which
    // rank first and fail the filter, and in the descriptions of some with it.
    const ticketAt = (n: number) => ({
      title: n % 5 === 0 && n % 3 === 0 ? `rollback step ${n}` : `step ${n}`,
      description: n % 5 === 0 ? 'nothing' : `cluster${n % 7 === 0 ? ' rollback' : ''} ${'x '.repeat(n % 4)}`,
    });
    const tickets = Array.from({ length: 2 * CHEAP_TO_RANK + 400 }, (_, n) => ticketAt(n));
    for (let first = 0; first < tickets.length; first += 200) {
      store.create(alpha, tickets.slice(first, first + 200));
    }
    const holdsCluster = (id: number) => (tickets[id - 1]?.description ?? '').includes('cluster');
    const byRollback = store.db
      .prepare(
        `SELECT rowid AS id, bm25(tickets_fts_1, 10.0, 3.0, 1.0) AS score FROM tickets_fts_1
         WHERE tickets_fts_1 MATCH 'rollback' ORDER BY score, rowid`,
      )
      .all() as { id: number; score: number }[];
    const expected = byRollback.filter((row) => holdsCluster(row.id)).slice(0, 30);
    expect(expected).toHaveLength(30);
    expect(holdsCluster(byRollback[0]?.id ?? 0)).toBe(false);
    const hits = store.search('alpha', 'rollback cluster', 30).hits;
    expect(ids(hits)).toEqual(expected.map((row) => `T-${row.id}`));
    expect(hits.map((hit) => hit.score)).toEqual(expected.map((row) => -row.score));
  });
});

describe('migration from the shared unstemmed index', () => {
  it('rebuilds one stemmed table per workspace from the tickets and comments of a version-1 file', () => {
    const file = path.join(dir, 'tickets.db');
    // The file as the first schema wrote it: tickets, comments, and the shared unicode61 table.
    const old = openDatabase(file, TICKET_MIGRATIONS.slice(0, 1));
    const insert = old.prepare(
      `INSERT INTO tickets (id, workspace, number, title, description, status, priority, author, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'todo', 'P2', 'old', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
    );
    insert.run(1, 'alpha', 1, 'Upload leaks memory', 'seen twice');
    insert.run(2, 'alpha', 2, 'Slow search', 'queries time out');
    insert.run(3, 'beta', 1, 'Leaking sockets', '');
    old
      .prepare("INSERT INTO comments (ticket_id, author, body, created_at) VALUES (2, 'old', ?, '2026')")
      .run('the index kept rebuilding');
    const fts = old.prepare(
      'INSERT INTO tickets_fts (rowid, title, description, comments) VALUES (?, ?, ?, ?)',
    );
    fts.run(1, 'Upload leaks memory', 'seen twice', '');
    fts.run(2, 'Slow search', 'queries time out', 'the index kept rebuilding');
    fts.run(3, 'Leaking sockets', '', '');
    expect(old.prepare("SELECT rowid FROM tickets_fts WHERE tickets_fts MATCH 'leak'").all()).toEqual([]);
    old.close();

    store = new SqliteTicketStore(file);
    expect(store.db.pragma('user_version', { simple: true })).toBe(TICKET_MIGRATIONS.length);
    expect(
      store.db.prepare("SELECT name FROM sqlite_master WHERE name = 'tickets_fts'").get(),
    ).toBeUndefined();
    expect(store.db.prepare('SELECT workspace, rows FROM search_indexes ORDER BY workspace').all()).toEqual([
      { workspace: 'alpha', rows: 2 },
      { workspace: 'beta', rows: 1 },
    ]);
    expect(ids(store.search('alpha', 'leak', 10).hits)).toEqual(['T-1']);
    expect(ids(store.search('beta', 'leak', 10).hits)).toEqual(['T-1']);
    expect(store.get('beta', 'T-1').title).toBe('Leaking sockets');
    expect(ids(store.search('alpha', 'rebuilds', 10).hits)).toEqual(['T-2']);
    // Tickets written after the migration are indexed next to the migrated ones.
    store.create(alpha, [{ title: 'Leaking bucket' }]);
    store.comment(alpha, 'T-1', 'leaks again');
    expect(ids(store.search('alpha', 'leaks', 10).hits).sort()).toEqual(['T-1', 'T-3']);
    expect(ids(store.search('alpha', 'time out', 10).hits)).toEqual(['T-2']);
    const { kept, actual } = termCounts(store.db);
    expect(kept).toEqual(actual);
    expect(store.db.prepare("SELECT rows FROM search_indexes WHERE workspace = 'alpha'").pluck().get()).toBe(
      3,
    );
  });
});
