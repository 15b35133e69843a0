import path from 'node:path';
import { createLogger } from '@toolmesh/core';
import { connectInMemory } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitServer } from '../src/server.js';
import { type GitFixture, gitFixture, makeRepository } from './fixture.js';

let fx: GitFixture;

beforeAll(async () => {
  fx = await gitFixture({ allowWrite: true });
  makeRepository(path.join(fx.root, 'app'), { 'a.txt': 'one\ntwo\nthree\n' });
});
afterAll(() => fx.close());

const repo = 'app';
const cases: [string, string, Record<string, unknown>, RegExp][] = [
  [
    'an unknown argument',
    'git_status',
    { repo, bogus: 1 },
    /unknown argument `bogus`: this tool takes repo, untracked/,
  ],
  [
    'a wrong enum value',
    'git_diff',
    { repo, mode: 'fancy' },
    /`mode`: Invalid option: expected one of "summary"\|"patch"\|"semantic"/,
  ],
  ['a missing required argument', 'git_history', { repo }, /`action`/],
  ['a budget below the minimum', 'git_status', { repo, maxTokens: 10 }, /`maxTokens`: Too small/],
  ['a wrong type', 'git_grep', { repo, pattern: 42 }, /`pattern`: Invalid input: expected string/],
  [
    'a repository that does not exist',
    'git_status',
    { repo: 'nope' },
    /repo "nope" does not exist: list the repositories with git_repos/,
  ],
  [
    'an unknown revision',
    'git_diff',
    { repo, from: 'no-such-branch' },
    /from "no-such-branch" does not name a commit in app: list branches/,
  ],
  [
    'a range where a revision goes',
    'git_history',
    { repo, action: 'show', revision: 'HEAD..HEAD' },
    /does not name a commit/,
  ],
  ['to without from', 'git_diff', { repo, to: 'HEAD' }, /`to` needs `from`/],
  [
    'staged with two revisions',
    'git_diff',
    { repo, staged: true, from: 'HEAD', to: 'HEAD' },
    /leave it out when comparing two revisions/,
  ],
  ['blame without a path', 'git_history', { repo, action: 'blame' }, /action=blame needs path/],
  [
    'blame with a reversed range',
    'git_history',
    { repo, action: 'blame', path: 'a.txt', startLine: 3, endLine: 2 },
    /endLine \(2\) is before startLine \(3\)/,
  ],
  [
    'blame past the end of the file',
    'git_history',
    { repo, action: 'blame', path: 'a.txt', startLine: 9 },
    /a\.txt has only 3 lines: startLine must be at most 3/,
  ],
  [
    'blame of a file that is not there',
    'git_history',
    { repo, action: 'blame', path: 'missing.txt' },
    /git blame failed .*missing\.txt/,
  ],
  [
    'an invalid regular expression',
    'git_grep',
    { repo, pattern: '(', regex: true },
    /git grep failed .*(Unmatched|parenthes)/i,
  ],
  [
    'an invalid branch name',
    'git_branch',
    { repo, action: 'create', name: 'a..b' },
    /"a\.\.b" is not a valid branch name/,
  ],
  [
    'a branch name with a space',
    'git_branch',
    { repo, action: 'create', name: 'a b' },
    /not a valid branch name/,
  ],
  [
    'startPoint for a switch',
    'git_branch',
    { repo, action: 'switch', name: 'main', startPoint: 'HEAD' },
    /startPoint is for action=create only/,
  ],
  ['an empty commit message', 'git_commit', { repo, message: '   ' }, /`message`: must not be empty/],
  ['popping a stash that is not there', 'git_stash', { repo, action: 'pop' }, /There is no stash@\{0\}/],
  [
    'restoring what has no changes',
    'git_restore',
    { repo, paths: ['a.txt'] },
    /Nothing to discard in a\.txt/,
  ],
  [
    'staging a path that matches nothing',
    'git_stage',
    { repo, paths: ['missing.txt'] },
    /git add failed .*pathspec 'missing\.txt' did not match/,
  ],
  [
    'a cursor it never issued',
    'git_history',
    { repo, action: 'log', cursor: 'garbage' },
    /`cursor` is not a cursor this server issued/,
  ],
  ['a NUL byte in a path', 'git_diff', { repo, paths: ['a\u0000b'] }, /NUL byte/],
  // Found by the fuzz test: Node refused to spawn git, and git_grep "failed unexpectedly".
  ['a NUL byte in a grep pattern', 'git_grep', { repo, pattern: 'a\u0000b' }, /"a\\u0000b" holds a NUL byte/],
  [
    'a NUL byte in a stash note',
    'git_stash',
    { repo, action: 'push', message: 'a\u0000b' },
    /holds a NUL byte, which git cannot take/,
  ],
  ['a control character in a revision', 'git_diff', { repo, from: 'HEAD\u0007' }, /control character/],
  [
    'an author without an email',
    'git_commit',
    { repo, message: 'x', author: { name: 'A', email: 'nobody' } },
    /author refused/,
  ],
  [
    'a too-long blame range',
    'git_history',
    { repo, action: 'blame', path: 'a.txt', endLine: 5000 },
    /at most 2000 lines/,
  ],
];

describe('bad input gets a clear error, and the server keeps serving', () => {
  for (const [what, tool, args, message] of cases) {
    it(what, async () => {
      expect(await fx.fails(tool, args)).toMatch(message);
      expect(await fx.ok('git_status', { repo })).toMatchObject({ branch: 'main' });
    });
  }
});

describe('without --allow-write', () => {
  it('registers only the reading tools, and the writing ones do not exist', async () => {
    const server = createGitServer({
      roots: [fx.root],
      log: createLogger({ level: 'error', sink: () => undefined }),
    });
    const client = await connectInMemory(server);
    const { tools } = await client.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'git_repos',
      'git_status',
      'git_diff',
      'git_history',
      'git_branches',
      'git_grep',
    ]);
    for (const tool of tools) {
      expect(tool._meta).toMatchObject({ 'toolmesh/actions': ['read'], 'toolmesh/requiresApproval': false });
      expect(tool.annotations).toMatchObject({ readOnlyHint: true });
    }
    await expect(client.call('git_commit', { repo, message: 'x' })).rejects.toThrow(
      /Unknown tool "git_commit"/,
    );
    await client.close();
  });

  it('the writing tools declare vcsWrite', async () => {
    const { tools } = await fx.client.listTools();
    const writing = tools
      .filter((tool) => !tool.annotations?.readOnlyHint)
      .map((tool) => [tool.name, tool._meta?.['toolmesh/actions']]);
    expect(writing).toEqual([
      ['git_stage', ['vcsWrite']],
      ['git_commit', ['vcsWrite']],
      ['git_branch', ['vcsWrite']],
      ['git_stash', ['vcsWrite']],
      ['git_restore', ['vcsWrite']],
    ]);
  });
});
