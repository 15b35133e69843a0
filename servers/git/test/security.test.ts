import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { createLogger } from '@toolmesh/core';
import { connectInMemory } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitServer } from '../src/server.js';
import { commitFiles, type GitFixture, git, gitFixture, makeRepository, writeFile } from './fixture.js';

let fx: GitFixture;
let app: string;
let other: string;

beforeAll(async () => {
  fx = await gitFixture({ allowWrite: true });
  app = makeRepository(path.join(fx.root, 'app'), { 'a.txt': 'one\n', 'src/b.txt': 'two\n' });
  other = makeRepository(path.join(fx.outside, 'other'), { 'secret.txt': 'outside the roots\n' });
  writeFile(path.join(fx.outside, '.kube/config'), 'apiVersion: v1\ntoken: outside\n');
});
afterAll(() => fx.close());

/** Every tool that takes `repo`, with the least it needs to get as far as touching the repository. */
const EVERY_TOOL: [string, Record<string, unknown>][] = [
  ['git_status', {}],
  ['git_diff', {}],
  ['git_history', { action: 'log' }],
  ['git_branches', {}],
  ['git_grep', { pattern: 'outside' }],
  ['git_stage', { paths: ['secret.txt'] }],
  ['git_commit', { message: 'pwned' }],
  ['git_branch', { action: 'create', name: 'pwned' }],
  ['git_stash', { action: 'list' }],
  ['git_restore', { paths: ['secret.txt'] }],
];

describe('CVE-2025-68143 class: no tool creates a repository anywhere', () => {
  it('offers no init, clone, push, fetch, reset or config tool', async () => {
    const { tools } = await fx.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'git_repos',
      'git_status',
      'git_diff',
      'git_history',
      'git_branches',
      'git_grep',
      'git_stage',
      'git_commit',
      'git_branch',
      'git_stash',
      'git_restore',
    ]);
    await expect(fx.call('git_init', { path: fx.outside })).rejects.toThrow(/Unknown tool "git_init"/);
  });

  it('refuses a plain folder and leaves it without a .git', async () => {
    const plain = path.join(fx.root, 'plain');
    mkdirSync(plain, { recursive: true });
    for (const [tool, args] of EVERY_TOOL) {
      expect(await fx.fails(tool, { ...args, repo: 'plain' })).toMatch(
        /"plain" is not inside a git repository: list .* git_repos/,
      );
    }
    expect(existsSync(path.join(plain, '.git'))).toBe(false);
  });
});

describe('CVE-2025-68144 class: nothing from a caller becomes an option such as --output', () => {
  const target = () => path.join(fx.outside, 'clobbered');
  const output = () => `--output=${target()}`;
  const attempts: [string, string, () => Record<string, unknown>, RegExp | undefined][] = [
    ['git_diff from', 'git_diff', () => ({ from: output() }), /begins with "-"/],
    ['git_diff to', 'git_diff', () => ({ from: 'HEAD', to: output(), mode: 'patch' }), /begins with "-"/],
    ['git_diff paths', 'git_diff', () => ({ paths: [output()] }), /begins with "-"/],
    [
      'git_history show revision',
      'git_history',
      () => ({ action: 'show', revision: output() }),
      /begins with "-"/,
    ],
    ['git_history log path', 'git_history', () => ({ action: 'log', path: output() }), /begins with "-"/],
    ['git_history blame path', 'git_history', () => ({ action: 'blame', path: output() }), /begins with "-"/],
    [
      'git_history log author',
      'git_history',
      () => ({ action: 'log', author: output() }),
      /not beginning with "-"/,
    ],
    [
      'git_history log since',
      'git_history',
      () => ({ action: 'log', since: output() }),
      /not beginning with "-"/,
    ],
    ['git_grep revision', 'git_grep', () => ({ pattern: 'one', revision: output() }), /begins with "-"/],
    ['git_grep paths', 'git_grep', () => ({ pattern: 'one', paths: [output()] }), /begins with "-"/],
    ['git_grep pattern (searched for, literally)', 'git_grep', () => ({ pattern: output() }), undefined],
    ['git_stage paths', 'git_stage', () => ({ paths: [output()] }), /begins with "-"/],
    ['git_restore paths', 'git_restore', () => ({ paths: [output()] }), /begins with "-"/],
    ['git_stash paths', 'git_stash', () => ({ action: 'push', paths: [output()] }), /begins with "-"/],
    ['git_branch name', 'git_branch', () => ({ action: 'create', name: output() }), /begins with "-"/],
    [
      'git_branch switch name',
      'git_branch',
      () => ({ action: 'switch', name: '--orphan=x' }),
      /begins with "-"/,
    ],
    [
      'git_branch startPoint',
      'git_branch',
      () => ({ action: 'create', name: 'ok', startPoint: output() }),
      /begins with "-"/,
    ],
    ['repo', 'git_status', () => ({ repo: output() }), /begins with "-"/],
  ];
  for (const [what, tool, args, refusal] of attempts) {
    it(what, async () => {
      if (refusal) expect(await fx.fails(tool, { repo: 'app', ...args() })).toMatch(refusal);
      else await fx.ok(tool, { repo: 'app', ...args() });
      expect(existsSync(target())).toBe(false);
    });
  }

  it('a commit or stash message that reads like an option is only a message', async () => {
    writeFile(path.join(app, 'a.txt'), 'stash me\n');
    await fx.ok('git_stash', { repo: 'app', action: 'push', message: output() });
    expect(git(app, 'stash', 'list', '--format=%gs')).toBe(`On main: ${output()}\n`);
    await fx.ok('git_stash', { repo: 'app', action: 'pop' });
    git(app, 'add', 'a.txt');
    await fx.ok('git_commit', { repo: 'app', message: output() });
    expect(git(app, 'log', '-1', '--format=%s')).toBe(`${output()}\n`);
    expect(existsSync(target())).toBe(false);
  });
});

describe('CVE-2025-68145 class: the repository restriction holds for every tool', () => {
  beforeAll(() => {
    symlinkSync(other, path.join(fx.root, 'link-to-other'));
    writeFile(path.join(fx.root, 'pointer/.git'), `gitdir: ${path.join(other, '.git')}\n`);
    git(other, 'worktree', 'add', '--quiet', path.join(fx.root, 'worktree'));
    makeRepository(`${fx.root}-evil`, { 'loot.txt': 'loot\n' });
    // A repository inside whose object store borrows the objects of one outside.
    const borrower = makeRepository(path.join(fx.root, 'borrower'), { 'own.txt': 'own\n' });
    writeFile(
      path.join(borrower, '.git', 'objects', 'info', 'alternates'),
      `${path.join(other, '.git', 'objects')}\n`,
    );
  });

  const escapes: [string, () => string, RegExp][] = [
    ['.. traversal', () => '../outside/other', /rule: traversal/],
    ['an absolute path outside', () => path.join(fx.outside, 'other'), /rule: outside-roots/],
    ['a sibling sharing the root as a prefix', () => `${fx.root}-evil`, /rule: outside-roots/],
    ['a symlink to a repository outside', () => 'link-to-other', /rule: symlink-escape/],
    ['a .git file pointing outside', () => 'pointer', /rule: git-dir-outside-roots/],
    ['a linked worktree of a repository outside', () => 'worktree', /rule: git-dir-outside-roots/],
    [
      'an object store that borrows objects from outside',
      () => 'borrower',
      /alternate object store .* outside the roots/,
    ],
  ];
  for (const [what, repo, rule] of escapes) {
    it(what, async () => {
      for (const [tool, args] of EVERY_TOOL)
        expect(await fx.fails(tool, { ...args, repo: repo() })).toMatch(rule);
      expect(git(other, 'status', '--porcelain')).toBe('');
      expect(git(other, 'branch', '--list', 'pwned')).toBe('');
    });
  }

  it('git_repos leaves out repositories whose git folder lies outside', async () => {
    const out = await fx.ok<{ repositories: { repo: string }[] }>('git_repos');
    expect(out.repositories.map((repo) => repo.repo)).toEqual(['app']);
  });

  it('refuses a root that is only a folder of a repository outside the roots', async () => {
    const server = createGitServer({
      roots: [path.join(app, 'src')],
      allowWrite: true,
      log: createLogger({ level: 'error', sink: () => undefined }),
    });
    const client = await connectInMemory(server);
    const result = await client.call('git_status', {});
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(
      /belongs to the repository at .*app, whose top folder lies outside the roots.*Start the server with --root/,
    );
    await client.close();
  });

  it('ignores GIT_DIR, GIT_WORK_TREE and other GIT_* variables of its own environment', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      GIT_DIR: path.join(other, '.git'),
      GIT_WORK_TREE: other,
      GIT_INDEX_FILE: path.join(other, '.git', 'index'),
      GIT_CONFIG_PARAMETERS: "'core.pager=touch /tmp/never'",
    });
    try {
      const status = await fx.ok<{ head: string }>('git_status', { repo: 'app' });
      expect(status.head).toBe(git(app, 'rev-parse', 'HEAD').trim());
      const grep = await fx.ok<{ matches: unknown[] }>('git_grep', {
        repo: 'app',
        pattern: 'outside the roots',
      });
      expect(grep.matches).toEqual([]);
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });
});

describe('CVE-2026-27735 class: paths outside the repository are refused before git sees them', () => {
  beforeAll(() => {
    symlinkSync(path.join(fx.outside, '.kube'), path.join(app, 'kube-link'));
    symlinkSync(path.join(fx.outside, '.kube', 'config'), path.join(app, 'config-link'));
  });

  const outsidePaths: [string, () => string, RegExp][] = [
    ['../../.kube/config', () => '../../outside/.kube/config', /leads outside the repository app/],
    [
      'an absolute path outside',
      () => path.join(fx.outside, '.kube/config'),
      /leads outside the repository app/,
    ],
    ['a file under a symlinked folder', () => 'kube-link/config', /leads outside the repository app/],
    ['the .git folder', () => '.git/config', /rule: deny-write/],
  ];
  for (const [what, target, refusal] of outsidePaths) {
    it(what, async () => {
      expect(await fx.fails('git_stage', { repo: 'app', paths: [target()] })).toMatch(refusal);
      expect(await fx.fails('git_restore', { repo: 'app', paths: [target()] })).toMatch(refusal);
      expect(await fx.fails('git_stash', { repo: 'app', action: 'push', paths: [target()] })).toMatch(
        refusal,
      );
      expect(git(app, 'diff', '--cached', '--name-only')).toBe('');
    });
  }

  it('read tools refuse the same paths', async () => {
    const target = '../../outside/.kube/config';
    expect(await fx.fails('git_diff', { repo: 'app', paths: [target] })).toMatch(/leads outside/);
    expect(await fx.fails('git_history', { repo: 'app', action: 'blame', path: target })).toMatch(
      /leads outside/,
    );
    expect(await fx.fails('git_grep', { repo: 'app', pattern: 'token', paths: [target] })).toMatch(
      /leads outside/,
    );
  });

  it('a symlink inside the repository is staged as a link, never as what it points at', async () => {
    await fx.ok('git_stage', { repo: 'app', paths: ['config-link'] });
    expect(git(app, 'ls-files', '--stage', 'config-link')).toMatch(/^120000 /);
    expect(git(app, 'show', ':config-link')).toBe(path.join(fx.outside, '.kube', 'config'));
    git(app, 'rm', '--quiet', '--cached', 'config-link');
  });
});

describe('CVE-2025-53107 class: no shell, so shell syntax is only text', () => {
  const marker = () => path.join(fx.outside, 'injected');
  const payloads = () => [
    `; touch ${marker()}`,
    `$(touch ${marker()})`,
    `\`touch ${marker()}\``,
    `| touch ${marker()}`,
    `&& touch ${marker()}`,
    `x\ntouch ${marker()}`,
  ];

  it('in revisions, branch names, paths, patterns, filters, messages and authors', async () => {
    for (const payload of payloads()) {
      const refused: [string, Record<string, unknown>][] = [
        ['git_diff', { repo: 'app', from: payload }],
        ['git_history', { repo: 'app', action: 'blame', path: payload }],
        ['git_branch', { repo: 'app', action: 'create', name: payload }],
        ['git_stage', { repo: 'app', paths: [payload] }],
        ['git_status', { repo: payload }],
      ];
      for (const [tool, args] of refused) expect((await fx.call(tool, args)).isError).toBe(true);
      // Searches take any text: it is looked for, literally.
      await fx.call('git_history', { repo: 'app', action: 'log', author: payload, grep: payload });
      expect(await fx.ok('git_grep', { repo: 'app', pattern: payload })).toMatchObject({ matches: [] });
    }
    expect(existsSync(marker())).toBe(false);
  });

  it('a commit message and author keep the text exactly', async () => {
    const [payload] = payloads();
    writeFile(path.join(app, 'a.txt'), 'injection test\n');
    git(app, 'add', 'a.txt');
    await fx.ok('git_commit', { repo: 'app', message: `subject ${payload}` });
    expect(git(app, 'log', '-1', '--format=%s')).toBe(`subject ${payload}\n`);
    expect(
      await fx.fails('git_commit', { repo: 'app', message: 'x', author: { name: 'a>b', email: 'e@x' } }),
    ).toMatch(/author refused/);
    expect(existsSync(marker())).toBe(false);
  });
});

describe('repository config cannot make a tool run a program', () => {
  let evil: string;
  let markers: string;
  const armed: string[] = [];

  /** A script that leaves a marker named after itself and passes its input through (as a filter must). */
  function trap(name: string): string {
    const script = path.join(fx.outside, 'traps', name);
    writeFile(script, `#!/bin/sh\ntouch '${path.join(markers, name)}'\ncat\n`);
    chmodSync(script, 0o755);
    armed.push(name);
    return script;
  }

  beforeAll(() => {
    markers = path.join(fx.outside, 'markers');
    mkdirSync(markers, { recursive: true });
    evil = makeRepository(path.join(fx.root, 'evil'), {
      'a.txt': 'one\n',
      'code.py': 'def f():\n    return 1\n',
      'eq.txt': 'eq\n',
      'included.txt': 'included\n',
    });
    commitFiles(
      evil,
      {
        '.gitattributes': '* filter=evil diff=evil merge=evil\neq.txt filter=a=b\nincluded.txt filter=inc\n',
      },
      'attributes',
    );
    const config: [string, string][] = [
      ['core.fsmonitor', trap('fsmonitor')],
      ['core.hooksPath', path.join(fx.outside, 'traps', 'hooks')],
      ['filter.evil.clean', trap('filter-clean')],
      ['filter.evil.smudge', trap('filter-smudge')],
      ['filter.evil.process', trap('filter-process')],
      ['filter.evil.required', 'true'],
      ['filter.a=b.clean', trap('filter-with-equals')],
      ['diff.external', trap('diff-external')],
      ['diff.evil.command', trap('diff-command')],
      ['diff.evil.textconv', trap('textconv')],
      ['merge.evil.driver', `${trap('merge-driver')} %O %A %B`],
      ['core.pager', trap('pager')],
      ['pager.log', trap('pager-log')],
      ['core.editor', trap('editor')],
      ['sequence.editor', trap('sequence-editor')],
      ['commit.gpgSign', 'true'],
      ['gpg.program', trap('gpg')],
      ['core.sshCommand', trap('ssh')],
      ['core.askPass', trap('askpass')],
      ['credential.helper', `!${trap('credential')}`],
      ['include.path', path.join(fx.outside, 'included.gitconfig')],
    ];
    for (const [key, value] of config) git(evil, 'config', key, value);
    writeFileSync(
      path.join(fx.outside, 'included.gitconfig'),
      `[filter "inc"]\n\tclean = ${trap('included-filter')}\n`,
    );
    for (const hook of [
      'pre-commit',
      'commit-msg',
      'post-commit',
      'post-checkout',
      'reference-transaction',
      'pre-auto-gc',
      'post-index-change',
    ]) {
      const script = trap(`hook-${hook}`);
      writeFile(path.join(fx.outside, 'traps', 'hooks', hook), readFileSync(script));
      chmodSync(path.join(fx.outside, 'traps', 'hooks', hook), 0o755);
      writeFile(path.join(evil, '.git', 'hooks', hook), readFileSync(script));
      chmodSync(path.join(evil, '.git', 'hooks', hook), 0o755);
    }
    // Stat data that no longer matches the index makes git re-read (and so re-filter) the files.
    for (const file of ['a.txt', 'eq.txt', 'included.txt']) {
      writeFile(path.join(evil, file), `${file} changed\n`);
      utimesSync(path.join(evil, file), new Date(2001, 1, 1), new Date(2001, 1, 1));
    }
  });

  it('through every tool, reading and writing', async () => {
    const repo = 'evil';
    await fx.ok('git_repos');
    await fx.ok('git_status', { repo, untracked: 'all' });
    for (const mode of ['summary', 'patch', 'semantic']) {
      await fx.ok('git_diff', { repo, mode });
      await fx.ok('git_diff', { repo, mode, staged: true });
      await fx.ok('git_diff', { repo, mode, from: 'HEAD~1', to: 'HEAD' });
      await fx.ok('git_diff', { repo, mode, from: 'HEAD~1' });
    }
    await fx.ok('git_history', { repo, action: 'log' });
    await fx.ok('git_history', { repo, action: 'show', revision: 'HEAD' });
    await fx.ok('git_history', { repo, action: 'blame', path: 'a.txt' });
    await fx.ok('git_history', { repo, action: 'blame', path: 'a.txt', revision: 'HEAD' });
    await fx.ok('git_branches', { repo });
    await fx.ok('git_grep', { repo, pattern: 'one' });
    await fx.ok('git_grep', { repo, pattern: 'one', revision: 'HEAD' });
    await fx.ok('git_stage', { repo, paths: ['a.txt', 'eq.txt', 'included.txt'] });
    await fx.ok('git_commit', { repo, message: 'through the traps' });
    await fx.ok('git_branch', { repo, action: 'create', name: 'side', switchTo: true });
    await fx.ok('git_branch', { repo, action: 'switch', name: 'main' });
    writeFile(path.join(evil, 'a.txt'), 'stashed\n');
    await fx.ok('git_stash', { repo, action: 'push' });
    writeFile(path.join(evil, 'a.txt'), 'conflicting\n');
    await fx.ok('git_stage', { repo, paths: ['a.txt'] });
    await fx.ok('git_commit', { repo, message: 'conflicting' });
    // Applying the stash is a merge of a.txt, which the merge driver would have made.
    await fx.fails('git_stash', { repo, action: 'pop' });
    await fx.ok('git_stage', { repo, paths: ['a.txt'] });
    writeFile(path.join(evil, 'code.py'), 'def f():\n    return 2\n');
    await fx.ok('git_restore', { repo, paths: ['code.py'] });
    expect(readdirSync(markers)).toEqual([]);
  });

  it("through every tool on a repository whose submodule's own config names the programs", async () => {
    // The outer repository is clean; the submodule (an embedded repository, recorded as a gitlink)
    // has an fsmonitor and a filter in its own config, which no override of the outer one names.
    const outer = makeRepository(path.join(fx.root, 'outer'), { 'top.txt': 'top\n' });
    const inner = makeRepository(path.join(outer, 'inner'), { 'f.txt': 'inner\n' });
    git(inner, 'config', 'core.fsmonitor', trap('submodule-fsmonitor'));
    git(inner, 'config', 'filter.sub.clean', trap('submodule-filter-clean'));
    writeFile(path.join(inner, '.git', 'info', 'attributes'), '* filter=sub\n');
    // .gitmodules is the outer repository's to write too: it asks that the submodule's files be looked at.
    writeFile(
      path.join(outer, '.gitmodules'),
      '[submodule "inner"]\n\tpath = inner\n\turl = ./inner\n\tignore = none\n',
    );
    git(outer, 'config', 'submodule.inner.ignore', 'none');
    git(outer, 'add', 'inner', '.gitmodules');
    git(outer, 'commit', '--quiet', '-m', 'add the submodule');
    const repo = 'outer';
    const touchInner = () =>
      utimesSync(path.join(inner, 'f.txt'), new Date(2001, 1, 1), new Date(2001, 1, 1));
    touchInner();
    await fx.ok('git_status', { repo, untracked: 'all' });
    for (const mode of ['summary', 'patch', 'semantic']) {
      touchInner();
      await fx.ok('git_diff', { repo, mode });
      await fx.ok('git_diff', { repo, mode, staged: true });
      await fx.ok('git_diff', { repo, mode, from: 'HEAD' });
    }
    touchInner();
    writeFile(path.join(outer, 'top.txt'), 'changed\n');
    await fx.ok('git_stage', { repo, paths: ['top.txt'] });
    touchInner();
    await fx.ok('git_commit', { repo, message: 'beside the submodule' });
    touchInner();
    await fx.ok('git_branch', { repo, action: 'create', name: 'side', switchTo: true });
    touchInner();
    await fx.ok('git_branch', { repo, action: 'switch', name: 'main' });
    writeFile(path.join(outer, 'top.txt'), 'stashed\n');
    touchInner();
    await fx.ok('git_stash', { repo, action: 'push' });
    touchInner();
    await fx.ok('git_stash', { repo, action: 'pop' });
    touchInner();
    await fx.ok('git_restore', { repo, paths: ['top.txt'] });
    expect(readdirSync(markers)).toEqual([]);
    // Plain git runs them from the outer repository (so the traps are armed).
    touchInner();
    spawnSync('git', ['diff'], { cwd: outer, stdio: 'ignore', env: { PATH: process.env.PATH, HOME: outer } });
    expect(readdirSync(markers)).not.toEqual([]);
    for (const marker of readdirSync(markers)) rmSync(path.join(markers, marker));
  });

  it('while the same repository runs them under plain git (so the traps are armed)', () => {
    writeFile(path.join(evil, 'a.txt'), 'again\n');
    for (const command of ['diff', 'status']) {
      spawnSync('git', [command], {
        cwd: evil,
        stdio: 'ignore',
        env: { PATH: process.env.PATH, HOME: evil },
      });
    }
    const fired = readdirSync(markers);
    expect(fired).toEqual(expect.arrayContaining(['fsmonitor', 'filter-process']));
    expect(armed.length).toBeGreaterThan(20);
  });
});

describe('secret files, tracked or not, never show their content', () => {
  const VALUE = 'sk_live_withheld_0123456789';
  let repo: string;

  beforeAll(() => {
    repo = makeRepository(path.join(fx.root, 'tracked-secrets'), { 'notes.txt': `see ${VALUE}\n` });
    writeFile(path.join(repo, '.env'), `STRIPE_KEY=${VALUE}\n`);
    writeFile(path.join(repo, 'app.py'), 'def handler():\n    return 1\n');
    git(repo, 'add', '--force', '.env', 'app.py');
    git(repo, 'commit', '--quiet', '-m', 'someone committed a secret');
    writeFile(path.join(repo, '.env'), `STRIPE_KEY=${VALUE}\nOTHER_KEY=${VALUE}2\n`);
    git(repo, 'mv', '.env', 'config.pem');
  });

  it('git_diff and git_history show name and counts, and say the content is withheld', async () => {
    const answers = [
      await fx.call('git_diff', { repo: 'tracked-secrets', mode: 'patch' }),
      await fx.call('git_diff', { repo: 'tracked-secrets', mode: 'patch', staged: true }),
      await fx.call('git_diff', { repo: 'tracked-secrets', mode: 'semantic', staged: true }),
      await fx.call('git_history', { repo: 'tracked-secrets', action: 'show' }),
    ];
    for (const answer of answers) {
      const text = JSON.stringify(answer);
      expect(text).not.toContain(VALUE);
      expect(text).toMatch(/\.env|config\.pem/);
    }
    expect(JSON.stringify(answers[3])).toContain(
      'content withheld: .env is a secret by its name (environment file (.env))',
    );
  });

  it('git_grep finds the value only outside secret files, and blame is refused', async () => {
    const found = await fx.ok<{ matches: { path: string }[] }>('git_grep', {
      repo: 'tracked-secrets',
      pattern: VALUE,
      revision: 'HEAD',
    });
    expect(found.matches.map((match) => match.path)).toEqual(['notes.txt']);
    const refused = await fx.fails('git_history', { repo: 'tracked-secrets', action: 'blame', path: '.env' });
    expect(refused).toContain('Blame refused: content withheld: .env');
  });
});
