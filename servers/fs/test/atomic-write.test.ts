import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileExclusive, writeFileAtomic } from '../src/files/atomic-write.js';

let folder: string;
beforeEach(() => {
  folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'atomic-')));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

describe('writeFileAtomic', () => {
  it('replaces a symlink planted at the target instead of writing through it', async () => {
    const victim = path.join(folder, 'victim.txt');
    writeFileSync(victim, 'untouched');
    const target = path.join(folder, 'target.txt');
    symlinkSync(victim, target);
    await writeFileAtomic(target, Buffer.from('new'), 0o600);
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(lstatSync(target).isSymbolicLink()).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe('new');
    expect(lstatSync(target).mode & 0o777).toBe(0o600);
    expect(readdirSync(folder).sort()).toEqual(['target.txt', 'victim.txt']);
  });
});

describe('createFileExclusive', () => {
  it('fails with EEXIST when anything is already there, leaving it and no temporary file', async () => {
    const target = path.join(folder, 'made.txt');
    await createFileExclusive(target, Buffer.from('first'));
    await expect(createFileExclusive(target, Buffer.from('second'))).rejects.toMatchObject({
      code: 'EEXIST',
    });
    symlinkSync(path.join(folder, 'elsewhere'), path.join(folder, 'dangling'));
    await expect(createFileExclusive(path.join(folder, 'dangling'), Buffer.from('x'))).rejects.toMatchObject({
      code: 'EEXIST',
    });
    expect(readFileSync(target, 'utf8')).toBe('first');
    expect(readdirSync(folder).sort()).toEqual(['dangling', 'made.txt']);
  });
});
