import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, mkdirSync, symlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { secretFileKind } from '@toolmesh/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FsFixture, fsFixture } from './fixture.js';

const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

let fx: FsFixture;
beforeEach(async () => {
  fx = await fsFixture();
});
afterEach(() => fx.close());

describe('stat_file', () => {
  it('gives type, size, mode and sha256 without content', async () => {
    chmodSync(fx.write('src/a.txt', 'hello\n'), 0o640);
    const stat = await fx.ok('stat_file', { path: 'src/a.txt' });
    expect(stat).toMatchObject({ path: 'src/a.txt', type: 'file', size: 6, mode: '0640' });
    expect(stat.sha256).toBe(createHash('sha256').update('hello\n').digest('hex'));
    expect(JSON.stringify(stat)).not.toContain('hello');
  });

  it('reports a symlink and its target, and folders', async () => {
    fx.write('src/a.txt', 'x');
    symlinkSync('src/a.txt', path.join(fx.root, 'link'));
    expect(await fx.ok('stat_file', { path: 'link' })).toMatchObject({
      type: 'symlink',
      symlinkTarget: 'src/a.txt',
    });
    expect(await fx.ok('stat_file', { path: 'src' })).toMatchObject({ type: 'directory' });
  });

  it('says when the path does not exist', async () => {
    expect(await fx.fails('stat_file', { path: 'nope.txt' })).toMatch(/does not exist/);
  });
});

describe('read_file', () => {
  it('reads a line range and says where to continue', async () => {
    fx.write('lines.txt', Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'));
    const page = await fx.ok('read_file', { path: 'lines.txt', startLine: 3, endLine: 4 });
    expect(page).toMatchObject({
      content: 'line 3\nline 4\n',
      totalLines: 10,
      startLine: 3,
      endLine: 4,
      nextStartLine: 5,
      truncated: false,
    });
    expect(page.sha256).toHaveLength(64);
  });

  it('stops at the byte budget and continues by cursor', async () => {
    const line = 'x'.repeat(99);
    fx.write('big.txt', `${Array.from({ length: 100 }, () => line).join('\n')}\n`);
    const first = await fx.ok<{ endLine: number; truncated: boolean; nextCursor: string; content: string }>(
      'read_file',
      {
        path: 'big.txt',
        maxTokens: 1000,
      },
    );
    expect(first.truncated).toBe(true);
    expect(first.endLine).toBe(10);
    expect(Buffer.byteLength(first.content)).toBeLessThanOrEqual(1000);
    const second = await fx.ok('read_file', { path: 'big.txt', maxTokens: 1000, cursor: first.nextCursor });
    expect(second).toMatchObject({ startLine: 11, endLine: 20 });
  });

  it('reports a line larger than the budget instead of returning nothing silently', async () => {
    fx.write('minified.js', 'y'.repeat(5000));
    expect(await fx.ok('read_file', { path: 'minified.js', maxTokens: 256 })).toMatchObject({
      content: '',
      truncated: true,
      blockedByBudget: true,
      minimumRequiredBytes: 5001,
    });
  });

  it('refuses binary files and files over maxFileBytes, saying what to use instead', async () => {
    fx.write('image.png', PNG_1X1);
    expect(await fx.fails('read_file', { path: 'image.png' })).toMatch(/binary file.*view_image/);
    fx.write('large.txt', 'z'.repeat(3 * 1024 * 1024));
    expect(await fx.fails('read_file', { path: 'large.txt' })).toMatch(/over maxFileBytes \(2097152\)/);
    expect(
      await fx.ok('read_file', { path: 'large.txt', maxFileBytes: 4 * 1024 * 1024, maxTokens: 256 }),
    ).toMatchObject({
      blockedByBudget: true,
    });
  });

  it('counts UTF-8 bytes in the budget', async () => {
    fx.write('utf8.txt', `${'é'.repeat(200)}\n${'é'.repeat(200)}\n`);
    expect(await fx.ok('read_file', { path: 'utf8.txt', maxTokens: 500 })).toMatchObject({
      endLine: 1,
      truncated: true,
    });
  });

  it('answers bad arguments and ranges with isError', async () => {
    fx.write('a.txt', 'one\n');
    expect(await fx.fails('read_file', { path: 'a.txt', startLine: 0 })).toMatch(/`startLine`/);
    expect(await fx.fails('read_file', { path: 'a.txt', startLine: 5 })).toMatch(/past the end.*1 lines/);
    expect(await fx.fails('read_file', { path: 'a.txt', maxTokens: 10 })).toMatch(/`maxTokens`/);
    expect(await fx.fails('read_file', { path: 42 })).toMatch(/`path`/);
  });

  it('refuses the secret files git refuses to commit, and reads their templates', async () => {
    const secretFiles = [
      '.git-credentials',
      '.netrc',
      '.pgpass',
      'certs/client.p12',
      'home/.aws/credentials',
      'app/.env.production',
      'keys/id_ed25519',
    ];
    for (const file of secretFiles) {
      fx.write(file, 'x');
      expect(secretFileKind(file), file).toBeDefined();
      expect(await fx.fails('read_file', { path: file })).toMatch(/rule: deny-read/);
    }
    for (const file of ['.env.example', 'keys/id_ed25519.pub']) {
      fx.write(file, 'public\n');
      expect(secretFileKind(file), file).toBeUndefined();
      expect(await fx.ok<{ content: string }>('read_file', { path: file })).toMatchObject({
        content: expect.stringContaining('public'),
      });
    }
  });
});

describe('list_dir', () => {
  beforeEach(() => {
    fx.write('src/index.ts', 'x');
    fx.write('src/lib/util.ts', 'x');
    fx.write('node_modules/dep/index.js', 'x');
    fx.write('dist/out.js', 'x');
    fx.write('tmp/scratch.txt', 'x');
    fx.write('.gitignore', 'tmp/\n*.log\n');
    fx.write('debug.log', 'x');
    fx.write('.env', 'SECRET=1');
    symlinkSync(fx.outside, path.join(fx.root, 'escape'));
  });

  it('lists shallowly, skipping dependencies, build output, gitignored files and secrets', async () => {
    const listing = await fx.ok<{ entries: { path: string; type: string }[] }>('list_dir', { path: '.' });
    expect(listing.entries.map((entry) => entry.path)).toEqual(['.gitignore', 'escape', 'src']);
    expect(listing.entries.find((entry) => entry.path === 'escape')?.type).toBe('symlink');
  });

  it('lists recursively to maxDepth, never entering symlinks', async () => {
    const deep = await fx.ok<{ entries: { path: string }[] }>('list_dir', { path: '.', recursive: true });
    expect(deep.entries.map((entry) => entry.path)).toEqual([
      '.gitignore',
      'escape',
      'src',
      'src/index.ts',
      'src/lib',
      'src/lib/util.ts',
    ]);
    const shallow = await fx.ok<{ entries: { path: string }[] }>('list_dir', {
      path: '.',
      recursive: true,
      maxDepth: 1,
    });
    expect(shallow.entries).toHaveLength(3);
  });

  it('includes ignored folders when asked, still never secrets', async () => {
    const all = await fx.ok<{ entries: { path: string }[] }>('list_dir', { path: '.', includeIgnored: true });
    const names = all.entries.map((entry) => entry.path);
    expect(names).toEqual(expect.arrayContaining(['node_modules', 'dist', 'tmp', 'debug.log']));
    expect(names).not.toContain('.env');
  });

  it('honours limit and the budget', async () => {
    for (let i = 0; i < 50; i++) fx.write(`many/file-${String(i).padStart(2, '0')}.txt`, 'x');
    const limited = await fx.ok('list_dir', { path: 'many', limit: 10 });
    expect(limited).toMatchObject({ limitReached: true, truncated: false });
    const budgeted = await fx.ok<{ entries: unknown[]; nextCursor: string }>('list_dir', {
      path: 'many',
      maxTokens: 300,
    });
    expect(budgeted.entries.length).toBeLessThan(50);
    const rest = await fx.ok<{ entries: { path: string }[] }>('list_dir', {
      path: 'many',
      maxTokens: 64000,
      cursor: budgeted.nextCursor,
    });
    expect(rest.entries.length + budgeted.entries.length).toBe(50);
    expect(await fx.fails('list_dir', { path: 'many', maxDepth: 21 })).toMatch(/`maxDepth`/);
  });

  it('explains a file or missing folder', async () => {
    expect(await fx.fails('list_dir', { path: 'src/index.ts' })).toMatch(/is a file, not a folder/);
    expect(await fx.fails('list_dir', { path: 'missing' })).toMatch(/does not exist/);
  });
});

describe('search_files', () => {
  it('matches any of several globs, by name at any depth or by path', async () => {
    fx.write('src/a.test.ts', 'x');
    fx.write('src/deep/b.test.ts', 'x');
    fx.write('src/c.ts', 'x');
    fx.write('docs/readme.md', 'x');
    fx.write('node_modules/x/y.test.ts', 'x');
    const found = await fx.ok<{ matches: { path: string }[] }>('search_files', {
      patterns: ['*.test.ts', 'docs/*.md'],
    });
    expect(found.matches.map((match) => match.path)).toEqual([
      'docs/readme.md',
      'src/a.test.ts',
      'src/deep/b.test.ts',
    ]);
    const one = await fx.ok<{ matches: unknown[]; truncated: boolean }>('search_files', {
      patterns: '*.ts',
      maxResults: 1,
    });
    expect(one.matches).toHaveLength(1);
    expect(one.truncated).toBe(true);
  });

  // Found by the fuzz test: an empty glob among the patterns "failed unexpectedly" in picomatch.
  it('refuses an empty glob, naming it', async () => {
    expect(await fx.fails('search_files', { patterns: ['*.ts', ''] })).toMatch(
      /Invalid arguments for search_files: `patterns(\.1)?`/,
    );
    expect(await fx.fails('search_text', { pattern: 'x', glob: '' })).toMatch(/`glob`/);
  });
});

describe('search_text', () => {
  beforeEach(() => {
    fx.write('src/a.ts', 'const alpha = 1;\nfunction beta() {}\n// TODO alpha again\n');
    fx.write('src/b.md', 'alpha in markdown\n');
    fx.write('bin/blob.bin', Buffer.from([0, 1, 2, 97, 108, 112, 104, 97]));
    fx.write('.env', 'alpha=secret');
    fx.write('node_modules/m/index.js', 'alpha');
  });

  it('finds a literal with line, column and context', async () => {
    const found = await fx.ok<{
      matches: { path: string; line: number; column: number; before?: string[]; after?: string[] }[];
    }>('search_text', { pattern: 'alpha', contextLines: 1 });
    expect(found.matches.map((match) => `${match.path}:${match.line}:${match.column}`)).toEqual([
      'src/a.ts:1:7',
      'src/a.ts:3:9',
      'src/b.md:1:1',
    ]);
    expect(found.matches[1]).toMatchObject({ before: ['function beta() {}'], after: [''] });
  });

  it('searches by regex, case-insensitively, within globs, or in one file', async () => {
    const regex = await fx.ok<{ matches: unknown[] }>('search_text', {
      pattern: '^function \\w+',
      regex: true,
    });
    expect(regex.matches).toHaveLength(1);
    const insensitive = await fx.ok<{ matches: unknown[] }>('search_text', {
      pattern: 'ALPHA',
      caseSensitive: false,
      glob: '*.md',
    });
    expect(insensitive.matches).toHaveLength(1);
    const single = await fx.ok<{ matches: unknown[] }>('search_text', { pattern: 'alpha', path: 'src/b.md' });
    expect(single.matches).toHaveLength(1);
  });

  it('pages through many matches by cursor without losing or repeating one', async () => {
    for (let file = 0; file < 5; file++) {
      fx.write(
        `many/${file}.txt`,
        Array.from({ length: 60 }, (_, i) => `needle ${file * 60 + i}`).join('\n'),
      );
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await fx.ok<{ matches: { text: string }[]; nextCursor?: string }>('search_text', {
        pattern: 'needle',
        path: 'many',
        maxTokens: 2000,
        ...(cursor && { cursor }),
      });
      seen.push(...page.matches.map((match) => match.text));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(300);
    expect(new Set(seen).size).toBe(300);
  });

  it('refuses an invalid regex with advice, and stops a runaway regex by its timeout', async () => {
    expect(await fx.fails('search_text', { pattern: '(unclosed', regex: true })).toMatch(
      /not a valid regular expression.*regex to false/,
    );
    fx.write('redos.txt', `${'a'.repeat(40)}!`);
    expect(
      await fx.fails('search_text', { pattern: '^(a+)+$', regex: true, path: 'redos.txt', timeoutMs: 1000 }),
    ).toMatch(/longer than 1 s and was stopped/);
    expect(await fx.ok('search_text', { pattern: 'alpha' })).toBeTruthy();
  });
});

describe('view_image', () => {
  it('returns an image by its bytes, whatever its name', async () => {
    fx.write('pictures/icon.dat', PNG_1X1);
    const result = await fx.call('view_image', { path: 'pictures/icon.dat' });
    expect(result.content[0]).toMatchObject({
      type: 'image',
      mimeType: 'image/png',
      data: PNG_1X1.toString('base64'),
    });
    expect(result.structuredContent).toMatchObject({ mimeType: 'image/png', bytes: PNG_1X1.length });
  });

  it('refuses what is not an image', async () => {
    mkdirSync(path.join(fx.root, 'folder'));
    fx.write('fake.png', 'not really');
    expect(await fx.fails('view_image', { path: 'fake.png' })).toMatch(/not a PNG, JPEG, GIF or WEBP/);
    expect(await fx.fails('view_image', { path: 'folder' })).toMatch(/not a file/);
  });
});

describe('what is not a regular file', () => {
  it('is refused by read_file, view_image and copy_file unopened, and a FIFO .gitignore stalls no walk', async () => {
    execFileSync('mkfifo', [path.join(fx.root, 'pipe'), path.join(fx.root, '.gitignore')]);
    const socket = net.createServer().listen(path.join(fx.root, 'socket'));
    await once(socket, 'listening');
    try {
      for (const name of ['pipe', 'socket']) {
        expect(await fx.fails('read_file', { path: name })).toMatch(/is not a file: use list_dir/);
        expect(await fx.fails('view_image', { path: name })).toMatch(/is not a file/);
        expect(await fx.fails('copy_file', { source: name, destination: 'copy' })).toMatch(/is not a file/);
      }
      const listing = await fx.ok<{ entries: { path: string }[] }>('list_dir', {});
      expect(listing.entries.map((entry) => entry.path)).toEqual(expect.arrayContaining(['pipe', 'socket']));
    } finally {
      socket.close();
    }
  });
});
