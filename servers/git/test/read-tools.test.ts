import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, type GitFixture, git, gitFixture, makeRepository, writeFile } from './fixture.js';

const PARSER_V1 = `export class Parser {
  constructor(private readonly text: string) {}

  parse(): string[] {
    return this.text.split(' ');
  }

  count(): number {
    return this.parse().length;
  }
}
`;

const PARSER_V2 = `export class Parser {
  constructor(private readonly text: string) {}

  parse(): string[] {
    return this.text.trim().split(/\\s+/);
  }

  count(): number {
    return this.parse().length;
  }
}

export function tokenize(text: string): string[] {
  return new Parser(text).parse();
}
`;

const UTIL_V1 = `def greet(name):
    return "hello " + name


class Greeter:
    def __init__(self, name):
        self.name = name

    def greet(self):
        return greet(self.name)
`;

let fx: GitFixture;
let app: string;
let clone: string;
let conflict: string;
const commits: Record<string, string> = {};

beforeAll(async () => {
  fx = await gitFixture({ allowWrite: false });
  app = makeRepository(path.join(fx.root, 'app'));
  commits.first = commitFiles(
    app,
    { 'src/parser.ts': PARSER_V1, 'lib/util.py': UTIL_V1, 'README.md': '# App\n' },
    'first commit',
  );
  git(app, 'tag', '-a', 'v1', '-m', 'version 1');
  git(app, 'tag', 'light');
  commits.second = commitFiles(
    app,
    { 'src/parser.ts': PARSER_V2 },
    'parse on any whitespace\n\nAnd add tokenize.',
  );
  mkdirSync(path.join(app, 'docs'));
  git(app, 'mv', 'README.md', 'docs/README.md');
  git(app, 'commit', '--quiet', '-m', 'move the readme');
  commits.third = git(app, 'rev-parse', 'HEAD').trim();
  git(app, 'branch', 'feature', commits.first as string);

  clone = path.join(fx.root, 'clone');
  git(fx.root, 'clone', '--quiet', app, clone);
  git(clone, 'config', 'user.name', 'Test Author');
  git(clone, 'config', 'user.email', 'author@example.com');
  commitFiles(clone, { 'clone-only.txt': 'mine\n' }, 'ahead by one');
  commits.fourth = commitFiles(app, { 'later.txt': 'later\n' }, 'behind by one');
  git(clone, 'fetch', '--quiet');

  // The app's working tree: one staged change, one unstaged, one new staged file, one untracked.
  writeFileSync(path.join(app, 'lib/util.py'), UTIL_V1.replace('hello ', 'hi '));
  git(app, 'add', 'lib/util.py');
  writeFile(
    path.join(app, 'src/parser.ts'),
    PARSER_V2.replace('this.parse().length', 'this.parse().length + 0'),
  );
  writeFile(path.join(app, 'staged-new.txt'), 'new\n');
  git(app, 'add', 'staged-new.txt');
  writeFile(path.join(app, 'notes/untracked.txt'), 'scratch\n');

  conflict = makeRepository(path.join(fx.root, 'group', 'conflict'), { 'a.txt': 'base\n' });
  git(conflict, 'switch', '--quiet', '-c', 'other');
  commitFiles(conflict, { 'a.txt': 'theirs\n' }, 'theirs');
  git(conflict, 'switch', '--quiet', 'main');
  commitFiles(conflict, { 'a.txt': 'ours\n' }, 'ours');
  try {
    git(conflict, 'merge', '--quiet', 'other');
  } catch {
    // The conflict is the point.
  }
});
afterAll(() => fx.close());

describe('git_repos', () => {
  it('lists the repositories under the roots with branch and clean flag', async () => {
    const out = await fx.ok<{ repositories: { repo: string; branch: string; clean: boolean }[] }>(
      'git_repos',
    );
    expect(out.repositories).toEqual([
      expect.objectContaining({ repo: 'app', branch: 'main', clean: false }),
      expect.objectContaining({ repo: 'clone', branch: 'main', clean: true }),
      expect.objectContaining({ repo: 'group/conflict', branch: 'main', clean: false }),
    ]);
  });

  it('respects maxDepth', async () => {
    const out = await fx.ok<{ repositories: { repo: string }[] }>('git_repos', { maxDepth: 1 });
    expect(out.repositories.map((repo) => repo.repo)).toEqual(['app', 'clone']);
  });
});

describe('git_status', () => {
  it('sorts the files into staged, unstaged and untracked', async () => {
    const out = await fx.ok('git_status', { repo: 'app' });
    expect(out).toMatchObject({
      branch: 'main',
      head: commits.fourth,
      detached: false,
      operation: null,
      clean: false,
      counts: { staged: 2, unstaged: 1, untracked: 1, conflicted: 0 },
      staged: [
        { path: 'lib/util.py', change: 'modified' },
        { path: 'staged-new.txt', change: 'added' },
      ],
      unstaged: [{ path: 'src/parser.ts', change: 'modified' }],
      untracked: ['notes/'],
      truncated: false,
    });
    const all = await fx.ok('git_status', { repo: 'app', untracked: 'all' });
    expect(all.untracked).toEqual(['notes/untracked.txt']);
  });

  it('reports upstream, ahead and behind', async () => {
    expect(await fx.ok('git_status', { repo: 'clone' })).toMatchObject({
      upstream: 'origin/main',
      ahead: 1,
      behind: 1,
      clean: true,
    });
  });

  it('reports a merge in progress and its conflicted file', async () => {
    expect(await fx.ok('git_status', { repo: 'group/conflict' })).toMatchObject({
      operation: 'merge',
      counts: { conflicted: 1 },
      conflicted: [{ path: 'a.txt', conflict: 'both modified' }],
    });
  });

  it('accepts a folder inside a repository as that repository', async () => {
    expect(await fx.ok('git_status', { repo: 'app/src' })).toMatchObject({ repo: 'app' });
  });
});

describe('git_diff', () => {
  it('summary: working tree vs index, index vs HEAD, and two revisions with a rename', async () => {
    const worktree = await fx.ok('git_diff', { repo: 'app' });
    expect(worktree).toMatchObject({
      comparison: 'working tree vs index',
      totals: { files: 1, added: 1, removed: 1 },
      files: [{ path: 'src/parser.ts', change: 'modified', added: 1, removed: 1, binary: false }],
    });
    const staged = await fx.ok('git_diff', { repo: 'app', staged: true });
    expect(staged.files).toEqual([
      expect.objectContaining({ path: 'lib/util.py', change: 'modified' }),
      expect.objectContaining({ path: 'staged-new.txt', change: 'added', added: 1, removed: 0 }),
    ]);
    const range = await fx.ok('git_diff', { repo: 'app', from: commits.second, to: commits.third });
    expect(range.files).toEqual([
      expect.objectContaining({
        path: 'docs/README.md',
        oldPath: 'README.md',
        change: 'renamed',
        added: 0,
        removed: 0,
      }),
    ]);
    const noRenames = await fx.ok('git_diff', {
      repo: 'app',
      from: commits.second,
      to: commits.third,
      renames: false,
    });
    expect((noRenames.files as { change: string }[]).map((file) => file.change)).toEqual([
      'deleted',
      'added',
    ]);
  });

  it('summary: a path filter and the work tree against a revision', async () => {
    const out = await fx.ok('git_diff', { repo: 'app', from: 'v1', paths: ['src'] });
    expect(out).toMatchObject({ files: [{ path: 'src/parser.ts' }], totals: { files: 1 } });
    expect(out.comparison).toMatch(/^working tree vs v1 \(/);
  });

  it('patch: the unified diff git itself prints', async () => {
    const out = await fx.ok<{ patch: string; truncated: boolean }>('git_diff', {
      repo: 'app',
      mode: 'patch',
      from: commits.first,
      to: commits.second,
    });
    expect(out.truncated).toBe(false);
    expect(out.patch).toBe(git(app, 'diff', commits.first as string, commits.second as string));
  });

  it('semantic: maps each hunk to the method, function or class it changes', async () => {
    const out = await fx.ok<{
      files: {
        path: string;
        language: string;
        outlined: boolean;
        hunks: { header: string; symbols: string[] }[];
        symbols: { name: string; kind: string; change: string }[];
      }[];
    }>('git_diff', { repo: 'app', mode: 'semantic', from: commits.first, to: commits.second });
    const [parser] = out.files;
    expect(parser).toMatchObject({ path: 'src/parser.ts', language: 'typescript', outlined: true });
    expect(parser?.symbols).toEqual([
      expect.objectContaining({ name: 'Parser.parse', kind: 'method', change: 'modified' }),
      expect.objectContaining({ name: '(top level)', kind: 'top-level' }),
      expect.objectContaining({ name: 'tokenize', kind: 'function', change: 'added' }),
    ]);
    expect(parser?.hunks[0]).toMatchObject({ symbols: ['Parser.parse'] });
    expect(parser?.hunks[0]?.header).toMatch(/parse\(\): string\[\]/);
  });

  it('semantic: Python methods by indentation, against the index', async () => {
    const out = await fx.ok<{
      files: { path: string; symbols: { name: string; kind: string }[]; hunks: { header: string }[] }[];
    }>('git_diff', { repo: 'app', mode: 'semantic', staged: true, paths: ['lib'] });
    expect(out.files[0]?.symbols).toEqual([
      expect.objectContaining({ name: 'greet', kind: 'function', change: 'modified' }),
    ]);
    expect(out.files[0]?.hunks[0]?.header).toBe('def greet(name):');
  });
});

describe('git_history', () => {
  it('log: newest first with the files each commit changed, filtered and limited', async () => {
    const out = await fx.ok<{ commits: { hash: string; subject: string; files: { path: string }[] }[] }>(
      'git_history',
      {
        repo: 'app',
        action: 'log',
        limit: 2,
      },
    );
    expect(out.commits.map((commit) => commit.subject)).toEqual(['behind by one', 'move the readme']);
    expect(out.commits[1]?.files).toEqual([
      { path: 'docs/README.md', oldPath: 'README.md', added: 0, removed: 0 },
    ]);
    const byPath = await fx.ok<{ commits: { hash: string }[] }>('git_history', {
      repo: 'app',
      action: 'log',
      path: 'src/parser.ts',
    });
    expect(byPath.commits.map((commit) => commit.hash)).toEqual([commits.second, commits.first]);
    const byMessage = await fx.ok<{ commits: { subject: string }[] }>('git_history', {
      repo: 'app',
      action: 'log',
      grep: 'tokenize',
    });
    expect(byMessage.commits.map((commit) => commit.subject)).toEqual(['parse on any whitespace']);
    const byAuthor = await fx.ok<{ commits: unknown[] }>('git_history', {
      repo: 'app',
      action: 'log',
      author: 'Nobody',
    });
    expect(byAuthor.commits).toEqual([]);
    const fromFeature = await fx.ok<{ commits: { hash: string }[] }>('git_history', {
      repo: 'app',
      action: 'log',
      revision: 'feature',
    });
    expect(fromFeature.commits.map((commit) => commit.hash)).toEqual([commits.first]);
  });

  it('show: one commit with its message and its patch', async () => {
    const out = await fx.ok<{
      commit: { hash: string; subject: string; body: string; parents: string[] };
      patch: string;
    }>('git_history', {
      repo: 'app',
      action: 'show',
      revision: commits.second,
    });
    expect(out.commit).toMatchObject({
      hash: commits.second,
      subject: 'parse on any whitespace',
      body: 'And add tokenize.',
      parents: [commits.first],
    });
    expect(out.patch).toBe(git(app, 'diff', commits.first as string, commits.second as string));
    const root = await fx.ok<{ commit: { comparedWith: string }; totals: { files: number } }>('git_history', {
      repo: 'app',
      action: 'show',
      revision: commits.first,
    });
    expect(root).toMatchObject({ commit: { comparedWith: 'the empty tree' }, totals: { files: 3 } });
  });

  it('blame: a line range, at a revision or in the working tree', async () => {
    const out = await fx.ok<{
      lines: { line: number; commit: string; author: string; text: string; uncommitted: boolean }[];
    }>('git_history', {
      repo: 'app',
      action: 'blame',
      path: 'src/parser.ts',
      startLine: 4,
      endLine: 5,
      revision: commits.second,
    });
    expect(out.lines).toEqual([
      expect.objectContaining({
        line: 4,
        commit: commits.first,
        author: 'Test Author',
        text: '  parse(): string[] {',
      }),
      expect.objectContaining({
        line: 5,
        commit: commits.second,
        text: '    return this.text.trim().split(/\\s+/);',
      }),
    ]);
    const worktree = await fx.ok<{ lines: { line: number; uncommitted: boolean }[] }>('git_history', {
      repo: 'app',
      action: 'blame',
      path: 'src/parser.ts',
      startLine: 9,
    });
    expect(worktree.lines.find((line) => line.line === 9)).toMatchObject({ uncommitted: true });
    expect(worktree.lines.at(-1)?.line).toBe(PARSER_V2.split('\n').length - 1);
  });
});

describe('git_branches', () => {
  it('lists local and remote branches and tags with tracking', async () => {
    const app_ = await fx.ok<{
      current: string;
      refs: { name: string; type: string; commit: string; current: boolean }[];
    }>('git_branches', {
      repo: 'app',
    });
    expect(app_.current).toBe('main');
    expect(app_.refs).toEqual([
      expect.objectContaining({ name: 'feature', type: 'local', current: false, commit: commits.first }),
      expect.objectContaining({ name: 'main', type: 'local', current: true, commit: commits.fourth }),
      expect.objectContaining({ name: 'light', type: 'tag', commit: commits.first }),
      expect.objectContaining({ name: 'v1', type: 'tag', commit: commits.first, subject: 'first commit' }),
    ]);
    const cloned = await fx.ok<{ refs: { name: string; type: string }[] }>('git_branches', {
      repo: 'clone',
      include: ['local', 'remote'],
    });
    expect(cloned.refs).toEqual([
      expect.objectContaining({ name: 'main', type: 'local', upstream: 'origin/main', ahead: 1, behind: 1 }),
      expect.objectContaining({ name: 'origin/feature', type: 'remote' }),
      expect.objectContaining({ name: 'origin/main', type: 'remote' }),
    ]);
  });
});

describe('git_grep', () => {
  it('finds literal strings and regular expressions in tracked files', async () => {
    const literal = await fx.ok<{ matches: { path: string; line: number; column: number; text: string }[] }>(
      'git_grep',
      {
        repo: 'app',
        pattern: 'parse()',
      },
    );
    expect(literal.matches).toEqual([
      { path: 'src/parser.ts', line: 4, column: 3, text: '  parse(): string[] {' },
      { path: 'src/parser.ts', line: 9, column: 17, text: '    return this.parse().length + 0;' },
      { path: 'src/parser.ts', line: 14, column: 27, text: '  return new Parser(text).parse();' },
    ]);
    const regex = await fx.ok<{ matches: { path: string }[] }>('git_grep', {
      repo: 'app',
      pattern: 'def [a-z_]+\\(',
      regex: true,
    });
    expect(regex.matches.map((match) => match.path)).toEqual(['lib/util.py', 'lib/util.py', 'lib/util.py']);
    const ignoreCase = await fx.ok<{ matches: unknown[] }>('git_grep', {
      repo: 'app',
      pattern: 'GREETER',
      ignoreCase: true,
    });
    expect(ignoreCase.matches).toHaveLength(1);
  });

  it('searches a revision, under paths, and takes a pattern beginning with "-"', async () => {
    const atFirst = await fx.ok<{ matches: { path: string; text: string }[] }>('git_grep', {
      repo: 'app',
      pattern: "split(' ')",
      revision: commits.first,
    });
    expect(atFirst.matches).toEqual([expect.objectContaining({ path: 'src/parser.ts' })]);
    const nowhere = await fx.ok<{ matches: unknown[] }>('git_grep', { repo: 'app', pattern: "split(' ')" });
    expect(nowhere.matches).toEqual([]);
    const underLib = await fx.ok<{ matches: { path: string }[] }>('git_grep', {
      repo: 'app',
      pattern: 'return',
      paths: ['lib'],
    });
    expect(new Set(underLib.matches.map((match) => match.path))).toEqual(new Set(['lib/util.py']));
    const dash = await fx.ok<{ matches: unknown[] }>('git_grep', { repo: 'app', pattern: '--output=x' });
    expect(dash.matches).toEqual([]);
  });
});
