import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { commitFiles, type GitFixture, git, gitFixture, makeRepository, writeFile } from './fixture.js';

// Paging a large diff through takes many git runs; on a loaded machine that is slow, never wrong.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const FILES = 120;
const LINES = 200;

let fx: GitFixture;
let repo: string;
let before: string;
let after: string;

function fileContent(index: number, version: number): string {
  const lines = [`export function file${index}() {`];
  for (let line = 1; line < LINES - 1; line++) {
    lines.push(
      line % 10 === 0 && version > 1 ? `  const line${line} = ${version};` : `  const line${line} = ${line};`,
    );
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

beforeAll(async () => {
  fx = await gitFixture({ allowWrite: false });
  repo = makeRepository(path.join(fx.root, 'big'));
  const first: Record<string, string> = {
    'huge.txt': `${Array.from({ length: 1000 }, (_, i) => `original line ${i}`).join('\n')}\n`,
  };
  for (let index = 0; index < FILES; index++)
    first[`src/file${String(index).padStart(3, '0')}.ts`] = fileContent(index, 1);
  before = commitFiles(repo, first, 'first');
  const second: Record<string, string> = {
    'huge.txt': `${Array.from({ length: 1000 }, (_, i) => `rewritten line ${i}`).join('\n')}\n`,
  };
  for (let index = 0; index < FILES; index++)
    second[`src/file${String(index).padStart(3, '0')}.ts`] = fileContent(index, 2);
  after = commitFiles(repo, second, 'second');
  for (let index = 0; index < 60; index++)
    git(repo, 'commit', '--quiet', '--allow-empty', '-m', `empty commit number ${index}`);
  for (let index = 0; index < 40; index++)
    writeFile(path.join(repo, `scratch/untracked-${index}.txt`), 'u\n');
});
afterAll(() => fx.close());

/** Calls a budgeted tool until it stops handing out a cursor; returns every page. */
async function allPages<T extends { truncated: boolean; nextCursor?: string }>(
  tool: string,
  args: Record<string, unknown>,
) {
  const pages: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await fx.ok<T>(tool, { ...args, ...(cursor && { cursor }) });
    pages.push(page);
    cursor = page.truncated ? page.nextCursor : undefined;
    if (page.truncated && (page as { blockedByBudget?: boolean }).blockedByBudget)
      throw new Error(`${tool}: blocked by the budget`);
    if (pages.length > 500) throw new Error('too many pages');
  } while (cursor);
  return pages;
}

/** The hunk lines of a patch, without the per-file header lines a continued page repeats. */
function hunkLines(patch: string): string[] {
  const kept: string[] = [];
  let inHeader = false;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) inHeader = true;
    else if (line.startsWith('@@')) inHeader = false;
    if (!inHeader && line !== '') kept.push(line);
  }
  return kept;
}

describe('git_diff mode=patch on a large diff', () => {
  it('is cut between hunks within maxTokens, and the pages together are the whole diff', async () => {
    const args = { repo: 'big', mode: 'patch', from: before, to: after, paths: ['src'], maxTokens: 12000 };
    const pages = await allPages<{
      patch: string;
      truncated: boolean;
      nextCursor?: string;
      totals: { files: number };
    }>('git_diff', args);
    const whole = git(repo, 'diff', before, after, '--', 'src');
    expect(pages.length).toBeGreaterThan(10);
    for (const page of pages) {
      expect(Buffer.byteLength(page.patch)).toBeLessThanOrEqual(12000);
      expect(page.patch.startsWith('diff --git ')).toBe(true);
      expect(page.totals.files).toBe(FILES);
    }
    expect(pages.flatMap((page) => hunkLines(page.patch))).toEqual(hunkLines(whole));
    const fileHeaders = new Set(
      pages.flatMap((page) => page.patch.split('\n').filter((line) => line.startsWith('diff --git '))),
    );
    expect([...fileHeaders]).toEqual(whole.split('\n').filter((line) => line.startsWith('diff --git ')));
  });

  it('says blockedByBudget when one hunk alone is larger than maxTokens', async () => {
    const small = await fx.ok('git_diff', {
      repo: 'big',
      mode: 'patch',
      from: before,
      to: after,
      paths: ['huge.txt'],
      maxTokens: 4000,
    });
    expect(small).toMatchObject({ patch: '', truncated: true, blockedByBudget: true });
    expect(small.minimumRequiredBytes).toBeGreaterThan(4000);
    const large = await fx.ok<{ patch: string; truncated: boolean }>('git_diff', {
      repo: 'big',
      mode: 'patch',
      from: before,
      to: after,
      paths: ['huge.txt'],
      maxTokens: 64000,
    });
    expect(large.truncated).toBe(false);
    expect(large.patch).toBe(git(repo, 'diff', before, after, '--', 'huge.txt'));
  });

  it('refuses a cursor from another request, and one it never issued', async () => {
    // Room for the large first hunk, so the page moves on and hands out a cursor.
    const page = await fx.ok<{ nextCursor: string }>('git_diff', {
      repo: 'big',
      mode: 'patch',
      from: before,
      to: after,
      maxTokens: 64000,
    });
    expect(page.nextCursor).toBeDefined();
    expect(
      await fx.fails('git_diff', {
        repo: 'big',
        mode: 'patch',
        from: before,
        to: 'HEAD',
        cursor: page.nextCursor,
      }),
    ).toMatch(/belongs to a request with other arguments/);
    expect(await fx.fails('git_diff', { repo: 'big', mode: 'patch', cursor: 'not-a-cursor' })).toMatch(
      /not a cursor this server issued/,
    );
  });
});

describe('other budgeted answers page through everything', () => {
  it('git_diff mode=summary and mode=semantic', async () => {
    const summary = await allPages<{ files: { path: string }[]; truncated: boolean; nextCursor?: string }>(
      'git_diff',
      {
        repo: 'big',
        from: before,
        to: after,
        maxTokens: 512,
      },
    );
    expect(summary.length).toBeGreaterThan(5);
    expect(summary.flatMap((page) => page.files.map((file) => file.path))).toHaveLength(FILES + 1);
    const semantic = await allPages<{
      files: { path: string; symbols: { name: string; addedLines: number }[] }[];
      truncated: boolean;
      nextCursor?: string;
    }>('git_diff', {
      repo: 'big',
      mode: 'semantic',
      from: before,
      to: after,
      paths: ['src'],
      maxTokens: 8000,
    });
    const files = semantic.flatMap((page) => page.files);
    expect(files).toHaveLength(FILES);
    expect(files[7]?.symbols).toEqual([expect.objectContaining({ name: 'file7', addedLines: 19 })]);
  });

  it('git_history log, show and blame', async () => {
    const log = await allPages<{ commits: { subject: string }[]; truncated: boolean; nextCursor?: string }>(
      'git_history',
      {
        repo: 'big',
        action: 'log',
        limit: 50,
        maxTokens: 1024,
      },
    );
    expect(log.length).toBeGreaterThan(3);
    const subjects = log.flatMap((page) => page.commits.map((commit) => commit.subject));
    expect(subjects).toEqual(Array.from({ length: 50 }, (_, i) => `empty commit number ${59 - i}`));
    const show = await allPages<{ patch: string; truncated: boolean; nextCursor?: string }>('git_history', {
      repo: 'big',
      action: 'show',
      revision: after,
      path: 'src',
      maxTokens: 16000,
    });
    expect(show.length).toBeGreaterThan(3);
    expect(show.flatMap((page) => hunkLines(page.patch))).toEqual(
      hunkLines(git(repo, 'show', '--format=', after, '--', 'src')),
    );
    const blame = await allPages<{ lines: { line: number }[]; truncated: boolean; nextCursor?: string }>(
      'git_history',
      {
        repo: 'big',
        action: 'blame',
        path: 'src/file000.ts',
        endLine: LINES,
        maxTokens: 2048,
      },
    );
    expect(blame.flatMap((page) => page.lines.map((line) => line.line))).toEqual(
      Array.from({ length: LINES }, (_, i) => i + 1),
    );
  });

  it('git_grep, up to maxResults', async () => {
    const pages = await allPages<{
      matches: unknown[];
      truncated: boolean;
      nextCursor?: string;
      limitReached: boolean;
    }>('git_grep', {
      repo: 'big',
      pattern: 'const line10 ',
      maxTokens: 1024,
    });
    expect(pages.length).toBeGreaterThan(3);
    expect(pages.flatMap((page) => page.matches)).toHaveLength(FILES);
    const limited = await allPages<{
      matches: unknown[];
      truncated: boolean;
      nextCursor?: string;
      limitReached: boolean;
    }>('git_grep', {
      repo: 'big',
      pattern: 'const line10 ',
      maxResults: 30,
      maxTokens: 1024,
    });
    expect(limited.flatMap((page) => page.matches)).toHaveLength(30);
    expect(limited.at(-1)?.limitReached).toBe(true);
  });

  it('git_status keeps complete counts while paging the file lists', async () => {
    const pages = await allPages<{
      untracked: string[];
      counts: { untracked: number };
      truncated: boolean;
      nextCursor?: string;
    }>('git_status', {
      repo: 'big',
      untracked: 'all',
      maxTokens: 256,
    });
    expect(pages.length).toBeGreaterThan(2);
    for (const page of pages) expect(page.counts.untracked).toBe(40);
    expect(pages.flatMap((page) => page.untracked)).toHaveLength(40);
  });
});
