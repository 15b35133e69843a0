import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { secretFileKind } from '@toolmesh/core';
import { SECRET_SAMPLES } from '@toolmesh/core/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { commitFiles, type GitFixture, git, gitFixture, makeRepository, writeFile } from './fixture.js';

let fx: GitFixture;
let repo: string;
let counter = 0;

beforeAll(async () => {
  fx = await gitFixture({ allowWrite: true });
});
afterAll(() => fx.close());

beforeEach(() => {
  counter++;
  repo = makeRepository(path.join(fx.root, `repo${counter}`), {
    'a.txt': 'one\n',
    'b.txt': 'two\n',
    'src/c.txt': 'three\n',
  });
});

const name = () => `repo${counter}`;
const status = () => git(repo, 'status', '--porcelain');
const head = () => git(repo, 'rev-parse', 'HEAD').trim();

describe('git_stage', () => {
  it('stages changes, new files and deletions, and unstages them again', async () => {
    writeFile(path.join(repo, 'a.txt'), 'changed\n');
    writeFile(path.join(repo, 'new.txt'), 'new\n');
    rmSync(path.join(repo, 'b.txt'));
    const staged = await fx.ok('git_stage', { repo: name(), paths: ['a.txt', 'new.txt', 'b.txt'] });
    expect(staged).toMatchObject({
      stagedCount: 3,
      staged: [
        { path: 'a.txt', change: 'modified' },
        { path: 'b.txt', change: 'deleted' },
        { path: 'new.txt', change: 'added' },
      ],
    });
    expect(git(repo, 'diff', '--cached', '--name-status')).toBe('M\ta.txt\nD\tb.txt\nA\tnew.txt\n');
    await fx.ok('git_stage', { repo: name(), action: 'unstage', paths: ['a.txt', 'b.txt'] });
    expect(git(repo, 'diff', '--cached', '--name-status')).toBe('A\tnew.txt\n');
    expect(readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('changed\n');
  });

  it('stages a folder, and unstages before the first commit', async () => {
    const fresh = makeRepository(path.join(fx.root, `fresh${counter}`));
    writeFile(path.join(fresh, 'dir/x.txt'), 'x\n');
    await fx.ok('git_stage', { repo: `fresh${counter}`, paths: ['dir'] });
    expect(git(fresh, 'status', '--porcelain')).toBe('A  dir/x.txt\n');
    await fx.ok('git_stage', { repo: `fresh${counter}`, action: 'unstage', paths: ['dir'] });
    expect(git(fresh, 'status', '--porcelain')).toBe('?? dir/\n');
  });

  it('refuses to stage an untracked secret file, by name or in a folder, and stages nothing', async () => {
    writeFile(path.join(repo, '.env'), 'API_KEY=abc\n');
    writeFile(path.join(repo, 'src/deploy/id_ed25519'), 'key\n');
    writeFile(path.join(repo, 'src/.env.example'), 'API_KEY=\n');
    writeFile(path.join(repo, 'a.txt'), 'changed\n');
    const byName = await fx.fails('git_stage', { repo: name(), paths: ['a.txt', '.env'] });
    expect(byName).toContain(`.env: ${secretFileKind('.env')}`);
    expect(byName).toContain('.gitignore');
    const inFolder = await fx.fails('git_stage', { repo: name(), paths: ['src'] });
    expect(inFolder).toContain(`src/deploy/id_ed25519: ${secretFileKind('src/deploy/id_ed25519')}`);
    expect(inFolder).not.toContain('.env.example');
    expect(git(repo, 'diff', '--cached', '--name-only')).toBe('');
    // An ignored secret stays out of `git add` anyway, so it does not stop the folder.
    writeFile(path.join(repo, '.gitignore'), '.env\nid_ed25519\n');
    await fx.ok('git_stage', { repo: name(), paths: ['.'] });
    expect(git(repo, 'diff', '--cached', '--name-only')).toBe('.gitignore\na.txt\nsrc/.env.example\n');
  });
});

describe('git_commit', () => {
  it('commits what is staged, with the configured author or the one given', async () => {
    writeFile(path.join(repo, 'a.txt'), 'changed\n');
    git(repo, 'add', 'a.txt');
    const out = await fx.ok<{ commit: string; branch: string; totals: unknown }>('git_commit', {
      repo: name(),
      message: 'Change a\n\nWith a body.',
    });
    expect(out).toMatchObject({ branch: 'main', totals: { files: 1, added: 1, removed: 1 } });
    expect(out.commit).toBe(head());
    expect(git(repo, 'log', '-1', '--format=%an <%ae>%n%B')).toBe(
      'Test Author <author@example.com>\nChange a\n\nWith a body.\n\n',
    );
    writeFile(path.join(repo, 'b.txt'), 'changed\n');
    git(repo, 'add', 'b.txt');
    await fx.ok('git_commit', {
      repo: name(),
      message: 'by someone else',
      author: { name: 'Other Person', email: 'other@example.com' },
    });
    expect(git(repo, 'log', '-1', '--format=%an <%ae>')).toBe('Other Person <other@example.com>\n');
  });

  it('refuses when nothing is staged', async () => {
    expect(await fx.fails('git_commit', { repo: name(), message: 'nothing' })).toMatch(
      /Nothing is staged: stage changes with git_stage/,
    );
  });
});

describe('git_commit refuses what looks like a secret, and commits nothing', () => {
  // Assembled here so that no scanner mistakes this test file for a leak.
  const planted: [string, string, string, RegExp][] = [
    [
      'a private key',
      'deploy/key.txt',
      `-----BEGIN ${'OPENSSH'} PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n`,
      /deploy\/key\.txt:1: private key/,
    ],
    [
      'an AWS access key id',
      'config/aws.ts',
      `export const id = '${'AKIA'}Z2XQ7YH3ABCDWXYZ';\n`,
      /config\/aws\.ts:1: AWS Access Key ID/,
    ],
    [
      'a GitHub token',
      'ci.yml',
      `token: ${'ghp_'}${'a1B2c3D4e5F6g7H8i9J0'.repeat(2).slice(0, 36)}\n`,
      /ci\.yml:1: GitHub Token/,
    ],
    [
      'a GitHub fine-grained token',
      'gh.txt',
      `${'github_pat_'}11ABCDEFG0123456789_${'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(2).slice(0, 62)}\n`,
      /gh\.txt:1: GitHub Token/,
    ],
    [
      'a Slack token',
      'slack.js',
      `const t = "${'xoxb'}-1234567890-0987654321-AbCdEfGhIjKl";\n`,
      /slack\.js:1: slack token/,
    ],
    [
      'a Stripe live key',
      'pay.py',
      `STRIPE = "${'sk_live'}_${'4eC39HqLyjWDarjtT1zdp7dc'}"\n`,
      /pay\.py:1: Stripe Live Secret Key/,
    ],
    [
      'a Google API key',
      'maps.html',
      `<script src="https://maps.example/js?key=${'AIza'}SyA1234567890abcdefghijklmnopqrstuv"></script>\n`,
      /maps\.html:1: Google API key/,
    ],
    [
      'an npm token',
      '.npmrc',
      `//registry.npmjs.org/:_authToken=${'npm_'}${'abcdefghijklmnopqrstuvwxyz0123456789'}\n`,
      /\.npmrc:1: npm/,
    ],
    ['a .env file', '.env', 'DEBUG=1\n', /\.env: environment file/],
    [
      'a high-entropy API_KEY',
      'settings.ini',
      'name = demo\nAPI_KEY = "q8Zr2LmX9vTb4NcW7yKp"\n',
      /settings\.ini:2: high-entropy value assigned to a secret name/,
    ],
    [
      'a password',
      'db.json',
      '{\n  "user": "app",\n  "password": "Tr0ub4dor&3x"\n}\n',
      /db\.json:3: high-entropy value/,
    ],
  ];
  for (const [what, file, content, finding] of planted) {
    it(what, async () => {
      const before = head();
      writeFile(path.join(repo, file), content);
      git(repo, 'add', '--force', file);
      const message = await fx.fails('git_commit', { repo: name(), message: 'add config' });
      expect(message).toMatch(finding);
      expect(message).toMatch(/Unstage that file with git_stage action=unstage paths=\[/);
      for (const line of content.split('\n').filter((text) => text.length > 12))
        expect(message).not.toContain(line);
      expect(head()).toBe(before);
      expect(git(repo, 'rev-list', '--count', 'HEAD')).toBe('1\n');
    });
  }

  it('the secret files fs refuses to read, each by its name', async () => {
    const secretFiles = [
      '.git-credentials',
      '.netrc',
      '.pgpass',
      'certs/client.p12',
      'home/.aws/credentials',
    ];
    for (const file of secretFiles) writeFile(path.join(repo, file), 'x\n');
    git(repo, 'add', '--force', ...secretFiles);
    const message = await fx.fails('git_commit', { repo: name(), message: 'add credentials' });
    for (const file of secretFiles) expect(message).toContain(`${file}: ${secretFileKind(file)}`);
    expect(git(repo, 'rev-list', '--count', 'HEAD')).toBe('1\n');
  });

  it('every secret format core knows, each named on its line', async () => {
    const lines: string[] = [];
    const startLines = SECRET_SAMPLES.map((sample) => {
      lines.push('', ...`value = ${sample.text}`.split('\n'));
      return lines.length - sample.text.split('\n').length + 1;
    });
    writeFile(path.join(repo, 'samples.txt'), `${lines.join('\n')}\n`);
    git(repo, 'add', 'samples.txt');
    const message = await fx.fails('git_commit', { repo: name(), message: 'add samples' });
    for (const line of startLines) expect(message).toMatch(new RegExp(`samples\\.txt:${line}: `));
    for (const sample of SECRET_SAMPLES) expect(message).not.toContain(sample.secret);
    expect(git(repo, 'rev-list', '--count', 'HEAD')).toBe('1\n');
  });

  it('a token in the commit message', async () => {
    writeFile(path.join(repo, 'a.txt'), 'changed\n');
    git(repo, 'add', 'a.txt');
    const message = await fx.fails('git_commit', {
      repo: name(),
      message: `use key ${'AKIA'}Z2XQ7YH3ABCDWXYZ`,
    });
    expect(message).toMatch(/\(commit message\):1: AWS Access Key ID/);
    expect(message).toMatch(/Remove the secret from the commit message/);
    expect(git(repo, 'rev-list', '--count', 'HEAD')).toBe('1\n');
  });

  it('but commits placeholders, templates, references and removed secrets', async () => {
    commitFiles(repo, { 'old.env.txt': `KEY=${'AKIA'}IOSFODNN7EXAMPLE\n` }, 'plant');
    writeFile(path.join(repo, 'old.env.txt'), 'KEY=\n');
    writeFile(path.join(repo, '.env.example'), 'API_KEY=your-api-key-here\n');
    writeFile(
      path.join(repo, 'src/config.ts'),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder as it appears in source files
      'const apiKey = process.env.API_KEY;\nconst token = config.auth.token;\nconst password = "${DB_PASSWORD}";\nconst translationKey = "settings.page.title";\n',
    );
    git(repo, 'add', '--all');
    await fx.ok('git_commit', { repo: name(), message: 'configuration by environment' });
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });
});

describe('git_branch', () => {
  it('creates, switches to and deletes a merged branch', async () => {
    const first = head();
    const created = await fx.ok('git_branch', { repo: name(), action: 'create', name: 'topic' });
    expect(created).toMatchObject({ branch: 'topic', commit: first, current: 'main' });
    expect(git(repo, 'rev-parse', 'topic').trim()).toBe(first);
    await fx.ok('git_branch', { repo: name(), action: 'switch', name: 'topic' });
    expect(git(repo, 'branch', '--show-current')).toBe('topic\n');
    await fx.ok('git_branch', {
      repo: name(),
      action: 'create',
      name: 'side',
      startPoint: 'HEAD',
      switchTo: true,
    });
    expect(git(repo, 'branch', '--show-current')).toBe('side\n');
    await fx.ok('git_branch', { repo: name(), action: 'switch', name: 'main' });
    expect(await fx.ok('git_branch', { repo: name(), action: 'delete', name: 'topic' })).toMatchObject({
      commit: first,
    });
    expect(git(repo, 'branch', '--list', 'topic')).toBe('');
  });

  it('refuses to delete an unmerged or the current branch, and to recreate one', async () => {
    git(repo, 'switch', '--quiet', '-c', 'unmerged');
    commitFiles(repo, { 'a.txt': 'unmerged\n' }, 'unmerged work');
    expect(await fx.fails('git_branch', { repo: name(), action: 'delete', name: 'unmerged' })).toMatch(
      /is checked out/,
    );
    git(repo, 'switch', '--quiet', 'main');
    expect(await fx.fails('git_branch', { repo: name(), action: 'delete', name: 'unmerged' })).toMatch(
      /not merged .* so it is kept/,
    );
    expect(git(repo, 'branch', '--list', 'unmerged')).toBe('  unmerged\n');
    expect(await fx.fails('git_branch', { repo: name(), action: 'create', name: 'unmerged' })).toMatch(
      /already exists/,
    );
    expect(await fx.fails('git_branch', { repo: name(), action: 'switch', name: 'nope' })).toMatch(
      /no local branch nope/,
    );
  });

  it('lets git refuse a switch that would overwrite local changes', async () => {
    git(repo, 'switch', '--quiet', '-c', 'other');
    commitFiles(repo, { 'a.txt': 'other\n' }, 'other');
    git(repo, 'switch', '--quiet', 'main');
    writeFile(path.join(repo, 'a.txt'), 'local edit\n');
    expect(await fx.fails('git_branch', { repo: name(), action: 'switch', name: 'other' })).toMatch(
      /would be overwritten/,
    );
    expect(readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('local edit\n');
  });
});

describe('git_stash', () => {
  it('pushes, lists and pops', async () => {
    writeFile(path.join(repo, 'a.txt'), 'wip\n');
    writeFile(path.join(repo, 'untracked.txt'), 'u\n');
    const pushed = await fx.ok('git_stash', {
      repo: name(),
      action: 'push',
      message: 'work in progress',
      includeUntracked: true,
    });
    expect(pushed).toMatchObject({
      stash: { index: 0, ref: 'stash@{0}', message: 'On main: work in progress' },
    });
    expect(status()).toBe('');
    expect(git(repo, 'stash', 'list', '--format=%gs')).toBe('On main: work in progress\n');
    const listed = await fx.ok('git_stash', { repo: name(), action: 'list' });
    expect(listed).toMatchObject({ stashes: [{ ref: 'stash@{0}', message: 'On main: work in progress' }] });
    await fx.ok('git_stash', { repo: name(), action: 'pop' });
    expect(readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('wip\n');
    expect(existsSync(path.join(repo, 'untracked.txt'))).toBe(true);
    expect(git(repo, 'stash', 'list')).toBe('');
  });

  it('stashes only the paths given, and says when there is nothing to stash', async () => {
    writeFile(path.join(repo, 'a.txt'), 'wip a\n');
    writeFile(path.join(repo, 'b.txt'), 'wip b\n');
    await fx.ok('git_stash', { repo: name(), action: 'push', paths: ['a.txt'] });
    expect(status()).toBe(' M b.txt\n');
    expect(await fx.fails('git_stash', { repo: name(), action: 'push', paths: ['src'] })).toMatch(
      /Nothing to stash in src/,
    );
    expect(await fx.fails('git_stash', { repo: name(), action: 'pop', index: 5 })).toMatch(
      /There is no stash@\{5\}/,
    );
  });

  it('keeps the stash when popping it conflicts', async () => {
    writeFile(path.join(repo, 'a.txt'), 'stashed\n');
    await fx.ok('git_stash', { repo: name(), action: 'push' });
    commitFiles(repo, { 'a.txt': 'committed meanwhile\n' }, 'meanwhile');
    expect(await fx.fails('git_stash', { repo: name(), action: 'pop' })).toMatch(
      /conflicted in a\.txt; the stash is kept/,
    );
    expect(git(repo, 'stash', 'list', '--format=%gd')).toBe('stash@{0}\n');
  });
});

describe('git_restore', () => {
  it('discards unstaged changes, saving them as a stash first, and they come back with a pop', async () => {
    writeFile(path.join(repo, 'a.txt'), 'staged\n');
    git(repo, 'add', 'a.txt');
    writeFile(path.join(repo, 'a.txt'), 'staged then edited\n');
    writeFile(path.join(repo, 'b.txt'), 'edited\n');
    const out = await fx.ok<{
      discarded: unknown[];
      stash: { ref: string; commit: string };
      recover: string;
    }>('git_restore', {
      repo: name(),
      paths: ['a.txt', 'b.txt'],
    });
    expect(out.discarded).toEqual([
      { path: 'a.txt', area: 'unstaged', change: 'modified' },
      { path: 'b.txt', area: 'unstaged', change: 'modified' },
    ]);
    expect(out.recover).toMatch(/git_stash action=pop index=0/);
    expect(readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('staged\n');
    expect(readFileSync(path.join(repo, 'b.txt'), 'utf8')).toBe('two\n');
    expect(status()).toBe('M  a.txt\n');
    expect(git(repo, 'rev-parse', 'refs/stash').trim()).toBe(out.stash.commit);
    git(repo, 'checkout', '--quiet', 'stash@{0}', '--', 'a.txt', 'b.txt');
    expect(readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('staged then edited\n');
    expect(readFileSync(path.join(repo, 'b.txt'), 'utf8')).toBe('edited\n');
  });

  it('with staged=true and includeUntracked=true, goes back to HEAD and removes untracked files', async () => {
    writeFile(path.join(repo, 'src/c.txt'), 'staged\n');
    git(repo, 'add', 'src/c.txt');
    writeFile(path.join(repo, 'src/new.txt'), 'untracked\n');
    writeFile(path.join(repo, 'a.txt'), 'left alone\n');
    const out = await fx.ok<{ discarded: { path: string; area: string }[] }>('git_restore', {
      repo: name(),
      paths: ['src'],
      staged: true,
      includeUntracked: true,
    });
    expect(out.discarded).toEqual([
      { path: 'src/c.txt', area: 'staged', change: 'modified' },
      { path: 'src/new.txt', area: 'untracked' },
    ]);
    expect(status()).toBe(' M a.txt\n');
    expect(existsSync(path.join(repo, 'src/new.txt'))).toBe(false);
    await fx.ok('git_stash', { repo: name(), action: 'pop' });
    expect(readFileSync(path.join(repo, 'src/new.txt'), 'utf8')).toBe('untracked\n');
    expect(readFileSync(path.join(repo, 'src/c.txt'), 'utf8')).toBe('staged\n');
  });

  it('says when there is nothing to discard, and keeps staged changes unless told', async () => {
    writeFile(path.join(repo, 'a.txt'), 'staged\n');
    git(repo, 'add', 'a.txt');
    expect(await fx.fails('git_restore', { repo: name(), paths: ['a.txt'] })).toMatch(
      /Nothing to discard in a\.txt \(staged changes are kept unless staged=true\)/,
    );
    expect(git(repo, 'stash', 'list')).toBe('');
  });

  it('declares itself as needing approval', async () => {
    const { tools } = await fx.client.listTools();
    const restore = tools.find((tool) => tool.name === 'git_restore');
    expect(restore?._meta).toMatchObject({
      'toolmesh/actions': ['vcsWrite'],
      'toolmesh/requiresApproval': true,
    });
    expect(restore?.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
  });
});
