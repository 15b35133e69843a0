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
});
