import path from 'node:path';
import { everyPage } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { commitFiles, type GitFixture, gitFixture, makeRepository, writeFile } from './fixture.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

// Every page at the smallest budget either moves forward or says what budget it needs.
const SMALLEST = 256;
const COMMITS = 12;

interface Paged {
  truncated: boolean;
  nextCursor?: string;
  blockedByBudget?: boolean;
  minimumRequiredBytes?: number;
}

let fx: GitFixture;
let repo: string;

beforeAll(async () => {
  fx = await gitFixture({ allowWrite: false });
  repo = makeRepository(path.join(fx.root, 'twelve'));
  for (let index = 0; index < COMMITS; index++)
    commitFiles(repo, { [`notes/note-${index}.txt`]: `note ${index}\nneedle ${index}\n` }, `commit ${index}`);
  for (let index = 0; index < 30; index++) writeFile(path.join(repo, `loose/untracked-${index}.txt`), 'u\n');
}, 120_000);
afterAll(() => fx.close());

/** Follows cursors; the pages end with every item once, or with a blocked page and no cursor. */
async function follow<T extends Paged>(
  tool: string,
  args: Record<string, unknown>,
  itemsOf: (page: T) => unknown[],
) {
  const pages = await everyPage((a) => fx.ok<T>(tool, a), { ...args, maxTokens: SMALLEST }, 100);
  const last = pages.at(-1) as T;
  for (const page of pages.slice(0, -1)) expect(itemsOf(page).length).toBeGreaterThan(0);
  if (last.blockedByBudget) {
    expect(last).toMatchObject({ truncated: true });
    expect(last.nextCursor).toBeUndefined();
    expect(last.minimumRequiredBytes).toBeGreaterThan(SMALLEST);
    const raised = await fx.ok<T>(tool, { ...args, maxTokens: last.minimumRequiredBytes });
    expect(raised.blockedByBudget).toBeUndefined();
  }
  return { pages, blocked: last.blockedByBudget === true, items: pages.flatMap(itemsOf) };
}

describe('paging at the smallest budget', () => {
  it('git_history log ends: commits once each, or blocked with the size it needs', async () => {
    const { blocked, items, pages } = await follow<Paged & { commits: { hash: string }[] }>(
      'git_history',
      { repo: 'twelve', action: 'log' },
      (page) => page.commits,
    );
    const hashes = items.map((commit) => (commit as { hash: string }).hash);
    expect(new Set(hashes).size).toBe(hashes.length);
    if (!blocked) expect(hashes).toHaveLength(COMMITS);
    expect(pages.length).toBeLessThanOrEqual(COMMITS + 1);
  });

  it('git_history log at a budget one commit fits sees each commit exactly once', async () => {
    const first = await fx.ok<Paged & { commits: { hash: string }[] }>('git_history', {
      repo: 'twelve',
      action: 'log',
      maxTokens: SMALLEST,
    });
    const budget = Math.max(SMALLEST, first.minimumRequiredBytes ?? SMALLEST);
    const pages = await everyPage(
      (a) => fx.ok<Paged & { commits: { hash: string }[] }>('git_history', a),
      { repo: 'twelve', action: 'log', maxTokens: budget },
      COMMITS + 1,
    );
    const hashes = pages.flatMap((page) => page.commits.map((commit) => commit.hash));
    expect(hashes).toHaveLength(COMMITS);
    expect(new Set(hashes).size).toBe(COMMITS);
  });

  it('git_status, git_branches, git_grep and git_repos end within a bound', async () => {
    const status = await follow<Paged & { untracked: string[] }>(
      'git_status',
      { repo: 'twelve', untracked: 'all' },
      (page) => page.untracked,
    );
    expect(new Set(status.items).size).toBe(status.items.length);
    if (!status.blocked) expect(status.items).toHaveLength(30);
    const grep = await follow<Paged & { matches: unknown[] }>(
      'git_grep',
      { repo: 'twelve', pattern: 'needle' },
      (page) => page.matches,
    );
    if (!grep.blocked) expect(grep.items).toHaveLength(COMMITS);
    await follow<Paged & { refs: unknown[] }>('git_branches', { repo: 'twelve' }, (page) => page.refs);
    await follow<Paged & { repositories: unknown[] }>('git_repos', {}, (page) => page.repositories);
  });
});
