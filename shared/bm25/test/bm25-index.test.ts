import { describe, expect, it } from 'vitest';
import { Bm25Index, tokenize } from '../src/index.js';

type Field = 'name' | 'body';

const DOCUMENTS: Record<string, Record<Field, string>> = {
  createIssue: { name: 'create_issue', body: 'Open a new issue in a repository.' },
  listIssues: { name: 'list_issues', body: 'List the issues of a repository, newest first.' },
  deleteBranch: { name: 'delete_branch', body: 'Delete a branch from a repository.' },
  readFile: { name: 'read_file', body: 'Read a file from disk and return its text.' },
  writeFile: { name: 'write_file', body: 'Write text to a file on disk, replacing it.' },
};

function indexOf(documents: Record<string, Record<Field, string>> = DOCUMENTS): Bm25Index<string, Field> {
  const index = new Bm25Index<string, Field>({ fields: { name: 3, body: 1 } });
  for (const [id, document] of Object.entries(documents)) index.add(id, document);
  return index;
}

const ids = <Id>(hits: { id: Id }[]) => hits.map((hit) => hit.id);

describe('Bm25Index', () => {
  it('ranks the documents that match best first, scores descending', () => {
    const hits = indexOf().search('delete a branch');
    expect(hits[0]!.id).toBe('deleteBranch');
    expect(hits.map((hit) => hit.score)).toEqual([...hits.map((hit) => hit.score)].sort((a, b) => b - a));
    expect(hits.every((hit) => hit.score > 0)).toBe(true);
  });

  it('returns only documents that match, at most `limit` of them', () => {
    const index = indexOf();
    expect(ids(index.search('file'))).toEqual(expect.arrayContaining(['readFile', 'writeFile']));
    expect(index.search('file')).toHaveLength(2);
    expect(index.search('repository', { limit: 2 })).toHaveLength(2);
    expect(index.search('kubernetes')).toEqual([]);
    expect(index.search('')).toEqual([]);
    expect(index.search('file', { limit: 0 })).toEqual([]);
  });

  it('weights fields: a match in a heavier field counts for more', () => {
    const index = new Bm25Index<string, Field>({ fields: { name: 5, body: 1 } });
    index.add('inName', { name: 'deploy', body: 'ship the build' });
    index.add('inBody', { name: 'ship', body: 'deploy the build' });
    expect(ids(index.search('deploy'))).toEqual(['inName', 'inBody']);
  });

  it('normalises by field length, so a short field matching beats a long one', () => {
    const index = new Bm25Index<string, 'body'>({ fields: { body: 1 } });
    index.add('short', { body: 'merge branches' });
    index.add('long', {
      body: 'merge branches after reviewing every change, running tests and asking twice',
    });
    expect(ids(index.search('merge'))).toEqual(['short', 'long']);
    const flat = new Bm25Index<string, 'body'>({ fields: { body: 1 }, b: 0 });
    flat.add('short', { body: 'merge branches' });
    flat.add('long', { body: 'merge branches after reviewing every change' });
    const [first, second] = flat.search('merge');
    expect(first!.score).toBe(second!.score);
  });

  it('orders equal scores by id, whatever the order of adding', () => {
    const forwards = new Bm25Index<string, 'body'>({ fields: { body: 1 } });
    const backwards = new Bm25Index<string, 'body'>({ fields: { body: 1 } });
    const names = ['c', 'a', 'b'];
    for (const name of names) forwards.add(name, { body: 'same text' });
    for (const name of names.reverse()) backwards.add(name, { body: 'same text' });
    expect(ids(forwards.search('text'))).toEqual(['a', 'b', 'c']);
    expect(ids(backwards.search('text'))).toEqual(['a', 'b', 'c']);
    expect(ids(forwards.search('text', { limit: 2 }))).toEqual(['a', 'b']);
  });

  it('tracks size and membership through add, replace and remove', () => {
    const index = indexOf();
    expect(index.size).toBe(5);
    expect(index.has('readFile')).toBe(true);
    index.add('readFile', { name: 'read_media', body: 'Read an image.' });
    expect(index.size).toBe(5);
    expect(ids(index.search('file'))).toEqual(['writeFile']);
    expect(index.remove('readFile')).toBe(true);
    expect(index.remove('readFile')).toBe(false);
    expect(index.has('readFile')).toBe(false);
    expect(index.size).toBe(4);
    expect(index.search('image')).toEqual([]);
  });

  it('after any sequence of adds and removes, scores exactly as an index built from scratch', () => {
    const churned = indexOf();
    churned.remove('listIssues');
    churned.remove('readFile');
    churned.add('readFile', DOCUMENTS.readFile!);
    churned.add('extra', { name: 'list_files', body: 'List the files in a folder.' });
    churned.remove('extra');
    const { listIssues: _, ...remaining } = DOCUMENTS;
    const fresh = indexOf(remaining);
    for (const query of ['issue', 'read a file', 'repository branch', 'disk text']) {
      expect(churned.search(query)).toEqual(fresh.search(query));
    }
  });

  it('after random churn that reuses slots, still scores exactly as a fresh index', () => {
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 48271) % 2147483647;
      return seed % below;
    };
    const vocabulary = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'sigma', 'kappa', 'theta'];
    const text = () =>
      Array.from({ length: 1 + random(6) }, () => vocabulary[random(vocabulary.length)]).join(' ');
    const churned = new Bm25Index<string, Field>({ fields: { name: 2, body: 1 } });
    const alive = new Map<string, Record<Field, string>>();
    for (let step = 0; step < 400; step++) {
      const id = `d${random(40)}`;
      if (random(3) === 0) {
        churned.remove(id);
        alive.delete(id);
      } else {
        const document = { name: text(), body: text() };
        churned.add(id, document, `g${random(3)}`);
        alive.set(id, document);
      }
    }
    const fresh = new Bm25Index<string, Field>({ fields: { name: 2, body: 1 } });
    for (const [id, document] of alive) fresh.add(id, document);
    expect(churned.size).toBe(alive.size);
    for (const query of ['alpha', 'beta gamma', 'omega kappa theta', 'sigma delta alpha beta']) {
      expect(churned.search(query, { limit: 50 })).toEqual(fresh.search(query, { limit: 50 }));
    }
  });

  it('after churn far past its first room, still scores exactly as a fresh index', () => {
    const text = (id: number, round: number) =>
      Array.from({ length: 30 }, (_, at) => `w${(id * 7 + at * 13 + round) % 400}`).join(' ');
    const churned = new Bm25Index<number, 'body'>({ fields: { body: 1 } });
    const alive = new Map<number, string>();
    for (let round = 0; round < 4; round++) {
      for (let id = 0; id < 3000; id++) {
        if ((id + round) % 3 === 0) {
          churned.remove(id);
          alive.delete(id);
        } else {
          churned.add(id, { body: text(id, round) });
          alive.set(id, text(id, round));
        }
      }
    }
    const fresh = new Bm25Index<number, 'body'>({ fields: { body: 1 } });
    for (const [id, body] of alive) fresh.add(id, { body });
    for (const query of ['w1', 'w17 w230', 'w399 w0 w5', 'w42 w42 w43']) {
      expect(churned.search(query, { limit: 40 })).toEqual(fresh.search(query, { limit: 40 }));
    }
  });

  it('expands query terms, counting a synonym for less than the word itself', () => {
    const index = indexOf();
    const expand = (term: string) => (term === 'remov' ? ['delete'] : []);
    expect(index.search('remove branch')[0]!.id).toBe('deleteBranch');
    const own = index.search('delete', { expand }).find((hit) => hit.id === 'deleteBranch')!.score;
    const synonym = index.search('remove', { expand, expansionWeight: 0.5 })[0]!;
    expect(synonym.id).toBe('deleteBranch');
    expect(synonym.score).toBeCloseTo(own * 0.5);
  });

  it('scores a term and its synonym as one concept, never twice', () => {
    const index = indexOf();
    const expand = (term: string) => (term === 'writ' ? ['save'] : term === 'save' ? ['write'] : []);
    const once = index.search('write', { expand })[0]!.score;
    expect(index.search('write save', { expand })[0]!.score).toBeCloseTo(once);
  });

  it('expands two adjacent query terms as a phrase, and an expansion of several terms as their sum', () => {
    const index = new Bm25Index<string, 'body'>({ fields: { body: 1 } });
    index.add('pr', { body: 'merge a pr' });
    index.add('other', { body: 'merge a branch' });
    const expand = (key: string) => (key === 'pull request' ? ['pr'] : key === 'pr' ? ['pull request'] : []);
    expect(index.search('merge pull request', { expand })[0]!.id).toBe('pr');
    index.add('spelled', { body: 'pull request' });
    const both = index.search('pr', { expand, expansionWeight: 1 }).find((hit) => hit.id === 'spelled')!;
    const pull = index.search('pull').find((hit) => hit.id === 'spelled')!;
    const request = index.search('request').find((hit) => hit.id === 'spelled')!;
    expect(both.score).toBeCloseTo(pull.score + request.score);
  });

  it('weighs a query given in parts by each part’s weight', () => {
    const index = indexOf();
    const whole = index.search('delete branch')[0]!;
    const half = index.search([{ text: 'delete branch', weight: 0.5 }])[0]!;
    expect(half.id).toBe(whole.id);
    expect(half.score).toBeCloseTo(whole.score * 0.5);
    const parted = index.search([{ text: 'delete' }, { text: 'branch', weight: 0.25 }])[0]!;
    const deleteOnly = index.search('delete')[0]!.score;
    const branchOnly = index.search('branch').find((hit) => hit.id === 'deleteBranch')!.score;
    expect(parted.score).toBeCloseTo(deleteOnly + 0.25 * branchOnly);
  });

  it('counts a term met in several parts as in the heaviest, and leaves out parts weighing nothing', () => {
    const index = indexOf();
    const once = index.search('delete branch');
    expect(index.search([{ text: 'delete branch' }, { text: 'delete', weight: 0.3 }])).toEqual(once);
    expect(index.search([{ text: 'branch', weight: 0.3 }, { text: 'delete branch' }])).toEqual(once);
    expect(index.search([{ text: 'delete branch' }, { text: 'file', weight: 0 }])).toEqual(once);
  });

  it('gives an expansion passed as a part its own weight', () => {
    const index = indexOf();
    const own = index.search('delete').find((hit) => hit.id === 'deleteBranch')!.score;
    const expand = (term: string) => (term === 'drop' ? [{ text: 'delete', weight: 0.9 }, 'remove'] : []);
    const hit = index.search('drop', { expand, expansionWeight: 0.2 })[0]!;
    expect(hit.id).toBe('deleteBranch');
    expect(hit.score).toBeCloseTo(own * 0.9);
  });

  it('filters', () => {
    const noFiles = indexOf().search('file', { filter: (id) => id !== 'readFile' });
    expect(ids(noFiles)).toEqual(['writeFile']);
  });

  it('boosts the matching documents of a group, and only those', () => {
    const index = new Bm25Index<string, 'body'>({ fields: { body: 1 } });
    index.add('plain', { body: 'read a file, read it all' });
    index.add('grouped', { body: 'read a file now and then, slowly' }, 'disk');
    index.add('unmatched', { body: 'write' }, 'disk');
    expect(ids(index.search('read file'))).toEqual(['plain', 'grouped']);
    const boosted = index.search('read file', {
      groupBoost: new Map([
        ['disk', 100],
        ['elsewhere', 5],
      ]),
    });
    expect(ids(boosted)).toEqual(['grouped', 'plain']);
    expect(boosted[0]!.score).toBeGreaterThan(100);
    index.remove('grouped');
    index.add('grouped', { body: 'read a file' });
    expect(index.search('read file', { groupBoost: new Map([['disk', 100]]) })[0]!.score).toBeLessThan(100);
  });

  it('keeps its terms while the vocabulary it shares gives back the numbers of words nobody holds', () => {
    const index = indexOf();
    const before = index.search('read a file');
    // Words met only in queries (and in other indexes' removed documents) are forgotten in time.
    for (let word = 0; word < 20_000; word++) tokenize(`query${word.toString(36)}word`);
    const other = new Bm25Index<number, 'body'>({ fields: { body: 1 } });
    for (let id = 0; id < 6000; id++) other.add(id, { body: `unique${id.toString(36)}term` });
    for (let id = 0; id < 6000; id++) other.remove(id);
    other.add(0, { body: 'a fresh document' });
    expect(index.search('read a file')).toEqual(before);
    index.add('later', { name: 'read_logs', body: 'Read the log file.' });
    expect(ids(index.search('log'))).toEqual(['later']);
    expect(ids(other.search('fresh'))).toEqual([0]);
    expect(other.search('unique0term')).toEqual([]);
  });

  it('accepts its own tokenizer and rejects an index without fields', () => {
    const index = new Bm25Index<number, 'body'>({ fields: { body: 1 }, tokenize: (text) => text.split(',') });
    index.add(1, { body: 'a b,c' });
    expect(ids(index.search('a b'))).toEqual([1]);
    expect(index.search('a')).toEqual([]);
    expect(() => new Bm25Index({ fields: {} })).toThrow(/at least one field/);
  });
});

describe('Bm25Index.reach', () => {
  const index = new Bm25Index<string, 'name' | 'body'>({ fields: { name: 3, body: 1 } });
  index.add('stash', { name: 'git stash', body: 'Set uncommitted changes aside.' });
  index.add('log', { name: 'git log', body: 'Show the commit history.' });
  index.add('status', { name: 'git status', body: 'Show the working tree status.' });

  it('names the query terms no document holds, nor any expansion of them', () => {
    const expand = (term: string) => (term === 'shelv' ? ['stash'] : []);
    expect(index.reach('shelve my frobnicated changes', { expand }).unmatched).toEqual([
      tokenize('frobnicated')[0],
    ]);
  });

  it('gives a full score no hit reaches, and that a query of unknown words lowers every share', () => {
    const known = index.reach('git stash changes');
    const [best] = index.search('git stash changes');
    expect(best?.id).toBe('stash');
    expect(best!.score).toBeLessThan(known.fullScore);
    const diluted = index.reach('git stash changes zzyzx quuxle');
    const [same] = index.search('git stash changes zzyzx quuxle');
    expect(same!.score / diluted.fullScore).toBeLessThan(best!.score / known.fullScore);
  });
});
