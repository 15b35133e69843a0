import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FS_TOOLS } from '../src/server.js';
import { type FsFixture, fsFixture } from './fixture.js';

let fx: FsFixture;
let evil: string;

beforeAll(async () => {
  fx = await fsFixture();
  writeFileSync(path.join(fx.outside, 'secret.txt'), 'TOP SECRET\n');
  fx.write('inside.txt', 'fine\n');
  // A sibling whose name starts with the root's name: /tmp/x/root vs /tmp/x/root-evil.
  evil = `${fx.root}-evil`;
  mkdirSync(evil);
  writeFileSync(path.join(evil, 'loot.txt'), 'loot\n');
  // Created after the server started, as an attacker (or a confused build step) would.
  symlinkSync(path.join(fx.outside, 'secret.txt'), path.join(fx.root, 'late-link'));
  symlinkSync(fx.outside, path.join(fx.root, 'parent-link'));
});
afterAll(() => fx.close());

const attempts: [string, () => string, RegExp][] = [
  ['.. traversal', () => '../outside/secret.txt', /rule: traversal/],
  ['deep .. traversal', () => 'a/b/../../../outside/secret.txt', /rule: traversal/],
  ['an absolute path elsewhere', () => path.join(fx.outside, 'secret.txt'), /rule: outside-roots/],
  ['/etc/passwd', () => '/etc/passwd', /rule: outside-roots/],
  [
    'a sibling that shares the root as a string prefix',
    () => path.join(evil, 'loot.txt'),
    /rule: outside-roots/,
  ],
  ['a symlink created after start that points out', () => 'late-link', /rule: symlink-escape/],
  ['a file under a symlinked parent folder', () => 'parent-link/secret.txt', /rule: symlink-escape/],
  ['a NUL byte', () => 'inside.txt\0/../../outside/secret.txt', /rule: nul-byte/],
  ['fullwidth dots and slash', () => '\uff0e\uff0e\uff0foutside/secret.txt', /rule: unicode-lookalike/],
  ['a two-dot leader', () => '\u2025/outside/secret.txt', /rule: unicode-lookalike/],
  ['a division slash', () => '..\u2215outside\u2215secret.txt', /rule: unicode-lookalike/],
];

type Call = (target: string) => [string, Record<string, unknown>];
const reads: [string, Call][] = [
  ['stat_file', (target) => ['stat_file', { path: target }]],
  ['read_file', (target) => ['read_file', { path: target }]],
  ['list_dir', (target) => ['list_dir', { path: target }]],
  ['search_files', (target) => ['search_files', { path: target, patterns: '*' }]],
  ['search_text', (target) => ['search_text', { path: target, pattern: 'SECRET' }]],
  ['view_image', (target) => ['view_image', { path: target }]],
  ['copy_file (source)', (target) => ['copy_file', { source: target, destination: 'copied.txt' }]],
  ['checkpoint_write create', (target) => ['checkpoint_write', { action: 'create', paths: [target] }]],
];
const writes: [string, Call][] = [
  [
    'apply_patch write',
    (target) => ['apply_patch', { operations: [{ op: 'write', path: target, content: 'pwned' }] }],
  ],
  ['apply_patch delete', (target) => ['apply_patch', { operations: [{ op: 'delete', path: target }] }]],
  [
    'apply_patch move (to)',
    (target) => ['apply_patch', { operations: [{ op: 'move', from: 'inside.txt', to: target }] }],
  ],
  ['apply_patch mkdir', (target) => ['apply_patch', { operations: [{ op: 'mkdir', path: target }] }]],
  ['copy_file (destination)', (target) => ['copy_file', { source: 'inside.txt', destination: target }]],
];

describe('every attempt to leave the roots is refused, naming the rule', () => {
  for (const [attempt, target, rule] of attempts) {
    for (const [tool, call] of [...reads, ...writes]) {
      it(`${tool}: ${attempt}`, async () => {
        const [name, args] = call(target());
        if (name === 'stat_file' && attempt.startsWith('a symlink')) {
          // The link itself lies inside the root: stat_file describes it, but never hashes through it.
          const stat = await fx.ok('stat_file', args);
          expect(stat).toMatchObject({ type: 'symlink' });
          expect(stat.sha256).toBeUndefined();
          return;
        }
        const message = await fx.fails(name, args);
        expect(message).toMatch(rule);
        expect(message).not.toContain('TOP SECRET');
      });
    }
  }

  it('left everything outside untouched', () => {
    expect(readFileSync(path.join(fx.outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
    expect(existsSync(path.join(fx.outside, 'pwned'))).toBe(false);
    expect(readFileSync(path.join(evil, 'loot.txt'), 'utf8')).toBe('loot\n');
    expect(readFileSync(path.join(fx.root, 'inside.txt'), 'utf8')).toBe('fine\n');
  });
});

describe('the server survives any input', () => {
  const junk: unknown[] = [
    null,
    42,
    'string',
    [],
    { path: null },
    { path: { nested: true } },
    { path: 'x'.repeat(100_000) },
    { operations: 'not-a-list' },
    { operations: [{}] },
    { action: 'explode' },
    { patterns: [1, 2] },
    { pattern: '' },
    { path: '\u0000' },
    { __proto__: { polluted: true } },
    { constructor: { prototype: { polluted: true } } },
  ];

  it('answers garbage for every tool with isError and keeps serving', async () => {
    for (const tool of FS_TOOLS) {
      for (const args of junk) {
        const result = (await fx.client
          .callTool({ name: tool.name, arguments: args as Record<string, unknown> })
          .catch(() => ({ isError: true }))) as { isError?: boolean; structuredContent?: unknown };
        const answered = result.isError === true || result.structuredContent !== undefined;
        expect(answered, `${tool.name} with ${JSON.stringify(args)?.slice(0, 80)}`).toBe(true);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await fx.ok('read_file', { path: 'inside.txt' })).toMatchObject({ content: 'fine\n' });
  });
});
