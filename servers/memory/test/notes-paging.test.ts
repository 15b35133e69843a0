import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MemoryFixture, memoryFixture } from './fixture.js';

interface NotesPage {
  notes: string;
  revision: number;
  truncated: boolean;
  nextCursor?: string;
  blockedByBudget?: boolean;
}

describe('get_my_notes pages', () => {
  let m: MemoryFixture;
  beforeAll(async () => {
    m = await memoryFixture({ workspaces: ['w'] });
  });
  afterAll(async () => {
    await m.close();
  });

  it('reads back, page by page notes whose one line is larger than the largest budget (66 KB)', async () => {
    const notes = `# head\n${'😀é'.repeat(11_000)}\ntail line\n`;
    await m.ok('update_my_notes', { notes, base_revision: 0 });
    let read = '';
    let cursor: string | undefined;
    for (let pages = 0; pages < 500; pages++) {
      const page = await m.ok<NotesPage>('get_my_notes', {
        maxTokens: pages === 0 ? 256 : 4000,
        ...(cursor && { cursor }),
      });
      expect(page.blockedByBudget).toBeUndefined();
      read += page.notes;
      if (!page.truncated) break;
      cursor = page.nextCursor;
    }
    expect(read).toBe(notes);
  });

  it('refuses to continue a page of notes that changed since, rather than stitch two revisions', async () => {
    const before = await m.ok<NotesPage>('get_my_notes', {});
    const lines = Array.from({ length: 200 }, (_, n) => `line ${n} of the first version\n`).join('');
    const saved = await m.ok<{ revision: number }>('update_my_notes', {
      notes: lines,
      base_revision: before.revision,
    });
    const first = await m.ok<NotesPage>('get_my_notes', { maxTokens: 1000 });
    expect(first.truncated).toBe(true);
    await m.ok('update_my_notes', { notes: `new head\n${lines}`, base_revision: saved.revision });
    expect(await m.fails('get_my_notes', { maxTokens: 1000, cursor: first.nextCursor })).toMatch(
      new RegExp(`revision ${saved.revision + 1} .*changed.*without cursor`),
    );
  });
});
