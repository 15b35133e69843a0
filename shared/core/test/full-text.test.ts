import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CachedTermCounts,
  CHEAP_TO_RANK,
  ftsPhrases,
  newestMatches,
  planFullText,
} from '../src/full-text.js';
import { openDatabase } from '../src/sqlite.js';

const folder = mkdtempSync(path.join(os.tmpdir(), 'full-text-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('planFullText', () => {
  const counts: Record<string, number> = { every: 10_000, most: 6000, some: 1200, rare: 3 };
  const documentsWith = (word: string) => counts[word];

  it('ranks by the words under the share, and lets the others only filter', () => {
    expect(planFullText(['rare', 'every', 'most'], documentsWith, 10_000, 0.5)).toEqual({
      order: 'ranked',
      ranking: ['rare'],
      filtering: ['every', 'most'],
    });
    expect(planFullText(['some', 'every', 'rare'], documentsWith, 10_000, 0.05)).toEqual({
      order: 'ranked',
      ranking: ['rare'],
      filtering: ['some', 'every'],
    });
  });

  it('reads newest first when every word is common, and ranks unknown words', () => {
    expect(planFullText(['every', 'most'], documentsWith, 10_000, 0.5).order).toBe('newest');
    expect(planFullText(['every', 'unknown'], documentsWith, 10_000, 0.5)).toMatchObject({
      order: 'ranked',
      ranking: ['unknown'],
    });
  });

  it('ranks by every word while too few documents hold one to make scoring it costly', () => {
    const small = (word: string) => (word === 'every' ? CHEAP_TO_RANK - 1 : 1);
    expect(planFullText(['every'], small, CHEAP_TO_RANK - 1, 0.5)).toEqual({
      order: 'ranked',
      ranking: ['every'],
      filtering: [],
    });
  });
});

describe('ftsPhrases and newestMatches', () => {
  it('quotes every word, and reads matches newest first, below a rowid when given', () => {
    expect(ftsPhrases(['a', 'NEAR'])).toBe('"a" AND "NEAR"');
    expect(ftsPhrases(['a', 'b'], 'OR')).toBe('"a" OR "b"');
    const db = openDatabase(path.join(folder, 'fts.sqlite'), ['CREATE VIRTUAL TABLE docs USING fts5(body)']);
    const insert = db.prepare('INSERT INTO docs (rowid, body) VALUES (?, ?)');
    for (let id = 1; id <= 50; id++) insert.run(id, id % 2 === 0 ? 'red blue' : 'red');
    expect(newestMatches(db, 'docs', ftsPhrases(['red', 'blue']), 3)).toEqual([50, 48, 46]);
    expect(newestMatches(db, 'docs', ftsPhrases(['red', 'blue']), 3, 46)).toEqual([44, 42, 40]);
    expect(newestMatches(db, 'docs', ftsPhrases(['blue', 'NEAR']), 3)).toEqual([]);
    db.close();
  });
});

describe('CachedTermCounts', () => {
  it('counts the rows holding a term once, and again after the table grew by a tenth', () => {
    const db = openDatabase(path.join(folder, 'counts.sqlite'), [
      "CREATE VIRTUAL TABLE notes USING fts5(body, tokenize = 'porter unicode61')",
    ]);
    const insert = db.prepare('INSERT INTO notes (body) VALUES (?)');
    for (let n = 0; n < 1000; n++) insert.run(n % 4 === 0 ? 'leaking pipes' : 'dry');
    const counts = new CachedTermCounts(db, 'notes');
    expect(counts.documentsWith('leaks', 1000)).toBe(250);
    for (let n = 0; n < 200; n++) insert.run('leaked');
    expect(counts.documentsWith('leaks', 1050)).toBe(250);
    expect(counts.documentsWith('leaks', 1200)).toBe(450);
    db.close();
  });
});
