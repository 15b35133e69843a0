import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../src/sqlite.js';
import { statementCache } from '../src/statement-cache.js';

const folder = mkdtempSync(path.join(os.tmpdir(), 'sqlite-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('openDatabase', () => {
  it("loads better-sqlite3's addon by its path, without the bindings package's search", () => {
    // A process of its own, so what it loaded is what opening one database loads; the built
    // kit, as a bin runs it.
    const core = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const loaded = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { createRequire } from 'node:module';
         const { openDatabase } = await import(${JSON.stringify(core)});
         openDatabase(':memory:', []).close();
         console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));`,
      ],
      { encoding: 'utf8' },
    );
    const modules: string[] = JSON.parse(loaded);
    expect(modules.some((file) => file.endsWith('better_sqlite3.node'))).toBe(true);
    expect(modules.filter((file) => file.includes(`${path.sep}bindings${path.sep}`))).toEqual([]);
  });

  it('creates the file and its folder, with WAL, foreign keys and a busy timeout', () => {
    const db = openDatabase(path.join(folder, 'nested', 'a.sqlite'), [
      'CREATE TABLE t (id INTEGER PRIMARY KEY)',
    ]);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    db.close();
  });

  it('applies each numbered migration once, across reopenings', () => {
    const file = path.join(folder, 'b.sqlite');
    const first = ['CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)'];
    let db = openDatabase(file, first);
    db.prepare('INSERT INTO notes (body) VALUES (?)').run('kept');
    db.close();
    db = openDatabase(file, [...first, 'ALTER TABLE notes ADD COLUMN tag TEXT']);
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    expect(db.prepare('SELECT body, tag FROM notes').get()).toEqual({ body: 'kept', tag: null });
    db.close();
  });

  it('runs a function migration in its step, with the database, once', () => {
    const file = path.join(folder, 'e.sqlite');
    const first = ['CREATE TABLE kinds (name TEXT)', "INSERT INTO kinds VALUES ('a'), ('b')"];
    const perKind = (db: SqliteDatabase) => {
      for (const { name } of db.prepare('SELECT name FROM kinds').all() as { name: string }[]) {
        db.exec(`CREATE TABLE items_${name} (id INTEGER)`);
      }
    };
    openDatabase(file, first).close();
    const db = openDatabase(file, [...first, perKind]);
    expect(db.pragma('user_version', { simple: true })).toBe(3);
    expect(
      db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'items_%' ORDER BY name").pluck().all(),
    ).toEqual(['items_a', 'items_b']);
    db.close();
    openDatabase(file, [...first, perKind]).close();
  });

  it('skips a step another connection applied between reading the version and taking the lock', () => {
    const file = path.join(folder, 'f.sqlite');
    const steps = ['CREATE TABLE a (id INTEGER)'];
    let raced = false;
    // Reading step 1 is the moment between the two: another "process" migrates the file then.
    const racing = new Proxy(steps, {
      get(target, key, receiver) {
        if (key === '0' && !raced) {
          raced = true;
          openDatabase(file, steps).close();
        }
        return Reflect.get(target, key, receiver);
      },
    });
    const db = openDatabase(file, racing);
    expect(raced).toBe(true);
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    db.close();
  });

  it('rolls back a failing migration and keeps the previous version', () => {
    const file = path.join(folder, 'c.sqlite');
    openDatabase(file, ['CREATE TABLE a (id INTEGER)']).close();
    expect(() =>
      openDatabase(file, [
        'CREATE TABLE a (id INTEGER)',
        'CREATE TABLE b (id INTEGER); SELECT * FROM missing',
      ]),
    ).toThrow();
    const db = openDatabase(file, ['CREATE TABLE a (id INTEGER)']);
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'b'").get()).toBeUndefined();
    db.close();
  });

  it('refuses a file written by a newer schema', () => {
    const file = path.join(folder, 'd.sqlite');
    openDatabase(file, ['CREATE TABLE a (id INTEGER)', 'CREATE TABLE b (id INTEGER)']).close();
    expect(() => openDatabase(file, ['CREATE TABLE a (id INTEGER)'])).toThrow(/newer than this toolmesh/);
  });
});

describe('statementCache', () => {
  it('compiles a text once, and keeps only the most recently used texts', () => {
    const db = openDatabase(path.join(folder, 'cache.sqlite'), []);
    const sql = statementCache(db, 3);
    const one = sql('SELECT 1');
    expect(sql('SELECT 1')).toBe(one);
    const two = sql('SELECT 2');
    sql('SELECT 3');
    sql('SELECT 1');
    sql('SELECT 4');
    // 2 was the least recently used when 4 came: it is compiled again; 1 was kept.
    expect(sql('SELECT 1')).toBe(one);
    expect(sql('SELECT 2')).not.toBe(two);
    db.close();
  });
});
