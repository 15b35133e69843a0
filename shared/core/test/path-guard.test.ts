import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInside, PathGuard, PathRefusal } from '../src/path-guard.js';

let base: string;
let root: string;
let guard: PathGuard;

function refusal(run: () => unknown): PathRefusal {
  try {
    run();
  } catch (error) {
    if (error instanceof PathRefusal) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'guard-')));
  root = path.join(base, 'data');
  mkdirSync(path.join(root, 'src'), { recursive: true });
  mkdirSync(path.join(base, 'data-evil'));
  mkdirSync(path.join(base, 'outside'));
  writeFileSync(path.join(root, 'src', 'a.ts'), 'a');
  writeFileSync(path.join(base, 'outside', 'secret.txt'), 'secret');
  writeFileSync(path.join(base, 'data-evil', 'x.txt'), 'x');
  symlinkSync(path.join(base, 'outside'), path.join(root, 'linked-out'));
  symlinkSync(path.join(base, 'outside', 'secret.txt'), path.join(root, 'secret-link'));
  symlinkSync(path.join(root, 'src', 'a.ts'), path.join(root, 'inner-link'));
  symlinkSync(path.join(base, 'nowhere', 'file'), path.join(root, 'dangling-out'));
  guard = new PathGuard([root]);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('PathGuard', () => {
  it('resolves relative paths against the first root and absolute paths inside a root', () => {
    expect(guard.resolve('src/a.ts', 'read')).toMatchObject({
      absolute: path.join(root, 'src', 'a.ts'),
      relative: 'src/a.ts',
    });
    expect(guard.resolve(path.join(root, 'src'), 'read').relative).toBe('src');
    expect(guard.resolve('.', 'read').relative).toBe('');
    expect(guard.resolve('src/new/file.ts', 'write').relative).toBe('src/new/file.ts');
  });

  it('refuses .. traversal out of the root', () => {
    expect(refusal(() => guard.resolve('../outside/secret.txt', 'read')).rule).toBe('traversal');
    expect(refusal(() => guard.resolve('src/../../outside', 'read')).rule).toBe('traversal');
  });

  it('refuses absolute paths elsewhere', () => {
    expect(refusal(() => guard.resolve('/etc/passwd', 'read')).rule).toBe('outside-roots');
  });

  it('refuses a sibling whose name starts with the root name (the startsWith bug)', () => {
    const error = refusal(() => guard.resolve(path.join(base, 'data-evil', 'x.txt'), 'read'));
    expect(error.rule).toBe('outside-roots');
    expect(isInside(root, `${root}-evil`)).toBe(false);
    expect(isInside(root, path.join(root, 'x'))).toBe(true);
  });

  it('refuses symlinks that lead out, to files, folders and nowhere, for reads and writes', () => {
    expect(refusal(() => guard.resolve('secret-link', 'read')).rule).toBe('symlink-escape');
    expect(refusal(() => guard.resolve('linked-out/secret.txt', 'read')).rule).toBe('symlink-escape');
    expect(refusal(() => guard.resolve('linked-out/new.txt', 'write')).rule).toBe('symlink-escape');
    expect(refusal(() => guard.resolve('dangling-out', 'write')).rule).toBe('symlink-escape');
  });

  it('follows symlinks that stay inside, and can keep a final symlink itself', () => {
    expect(guard.resolve('inner-link', 'read').relative).toBe('src/a.ts');
    expect(guard.resolve('secret-link', 'read', { followFinalSymlink: false }).relative).toBe('secret-link');
  });

  it('refuses NUL bytes, control characters, invisible characters and Unicode look-alikes', () => {
    expect(refusal(() => guard.resolve('src/a.ts\0.png', 'read')).rule).toBe('nul-byte');
    expect(refusal(() => guard.resolve('src/\u0007a', 'read')).rule).toBe('control-character');
    expect(refusal(() => guard.resolve('src/\u202ea.ts', 'read')).rule).toBe('invisible-character');
    for (const disguised of [
      '\u2025/outside',
      '\uff0e\uff0e/outside',
      'src\uff0fa.ts',
      '..\u2215outside',
      '\u2024\u2024/x',
    ]) {
      expect(refusal(() => guard.resolve(disguised, 'read')).rule).toBe('unicode-lookalike');
    }
    expect(guard.resolve('src/日本語.ts', 'write').relative).toBe('src/日本語.ts');
  });

  it('denies secrets for reading and writing, and .git internals for writing only', () => {
    writeFileSync(path.join(root, '.env.local'), 'TOKEN=1');
    mkdirSync(path.join(root, '.git'), { recursive: true });
    writeFileSync(path.join(root, '.git', 'HEAD'), 'ref: refs/heads/main');
    expect(refusal(() => guard.resolve('.env.local', 'read')).rule).toBe('deny-read');
    expect(refusal(() => guard.resolve('keys/id_rsa', 'write')).rule).toBe('deny-write');
    expect(refusal(() => guard.resolve('src/server.pem', 'read')).message).toMatch(/\*\*\/\*\.pem/);
    expect(guard.resolve('.git/HEAD', 'read').relative).toBe('.git/HEAD');
    expect(refusal(() => guard.resolve('.git/HEAD', 'write')).rule).toBe('deny-write');
  });

  it('applies deny rules to where a symlink leads, not only to its name', () => {
    symlinkSync(path.join(root, '.env.local'), path.join(root, 'innocent.txt'));
    expect(refusal(() => guard.resolve('innocent.txt', 'read')).rule).toBe('deny-read');
  });

  it('names the rule and the roots in its message', () => {
    const error = refusal(() => guard.resolve('/etc/passwd', 'read'));
    expect(error.message).toContain(root);
    expect(error.message).toContain('rule: outside-roots');
  });

  it('serves several roots', () => {
    const two = new PathGuard([root, path.join(base, 'outside')]);
    expect(two.resolve(path.join(base, 'outside', 'secret.txt'), 'read').root).toBe(
      path.join(base, 'outside'),
    );
    expect(two.resolve('secret-link', 'read').relative).toBe('secret.txt');
  });
});
