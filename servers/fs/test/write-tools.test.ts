import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FsFixture, fsFixture } from './fixture.js';

const sha = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

let fx: FsFixture;
beforeEach(async () => {
  fx = await fsFixture();
});
afterEach(() => fx.close());

const read = (relative: string) => readFileSync(path.join(fx.root, relative), 'utf8');
const exists = (relative: string) => existsSync(path.join(fx.root, relative));
const modeOf = (relative: string) => statSync(path.join(fx.root, relative)).mode & 0o777;

describe('apply_patch', () => {
  it('applies write, replace, delete, move and mkdir in order, later operations seeing earlier ones', async () => {
    fx.write('src/app.ts', 'const name = "old";\nexport default name;\n');
    fx.write('old.txt', 'moving');
    fx.write('trash.txt', 'bye');
    const result = await fx.ok<{ files: { path: string; change: string }[]; folders: unknown[] }>(
      'apply_patch',
      {
        operations: [
          { op: 'write', path: 'src/new/module.ts', content: 'export const a = 1;\n' },
          { op: 'replace', path: 'src/new/module.ts', oldText: 'a = 1', newText: 'a = 2' },
          { op: 'replace', path: 'src/app.ts', oldText: '"old"', newText: '"new"' },
          { op: 'delete', path: 'trash.txt' },
          { op: 'move', from: 'old.txt', to: 'archive/old.txt' },
          { op: 'mkdir', path: 'empty/folder' },
        ],
      },
    );
    expect(read('src/new/module.ts')).toBe('export const a = 2;\n');
    expect(read('src/app.ts')).toBe('const name = "new";\nexport default name;\n');
    expect(exists('trash.txt')).toBe(false);
    expect(read('archive/old.txt')).toBe('moving');
    expect(exists('old.txt')).toBe(false);
    expect(statSync(path.join(fx.root, 'empty/folder')).isDirectory()).toBe(true);
    expect(result.files.map((file) => `${file.change} ${file.path}`)).toEqual([
      'created archive/old.txt',
      'deleted old.txt',
      'modified src/app.ts',
      'created src/new/module.ts',
      'deleted trash.txt',
    ]);
  });

  it('returns the diff on dryRun and touches nothing', async () => {
    fx.write('a.txt', 'one\ntwo\n');
    const result = await fx.ok<{ applied: boolean; diff: string }>('apply_patch', {
      dryRun: true,
      operations: [
        { op: 'replace', path: 'a.txt', oldText: 'two', newText: 'three' },
        { op: 'write', path: 'b.txt', content: 'new file\n' },
      ],
    });
    expect(result.applied).toBe(false);
    expect(result.diff).toContain('-two');
    expect(result.diff).toContain('+three');
    expect(result.diff).toContain('+new file');
    expect(read('a.txt')).toBe('one\ntwo\n');
    expect(exists('b.txt')).toBe(false);
  });

  it('checks expectedSha256 against the file as it was before the patch', async () => {
    fx.write('a.txt', 'v1');
    const stale = await fx.fails('apply_patch', {
      operations: [{ op: 'write', path: 'a.txt', content: 'v2', expectedSha256: sha('v0') }],
    });
    expect(stale).toMatch(
      /Operation 1 \(write a.txt\) failed: the file changed since it was read.*Nothing was changed/,
    );
    await fx.ok('apply_patch', {
      operations: [
        { op: 'replace', path: 'a.txt', oldText: 'v1', newText: 'v2', expectedSha256: sha('v1') },
        { op: 'replace', path: 'a.txt', oldText: 'v2', newText: 'v3', expectedSha256: sha('v1') },
      ],
    });
    expect(read('a.txt')).toBe('v3');
  });

  it('needs a unique match for replace unless replaceAll', async () => {
    fx.write('a.txt', 'x = 1\nx = 1\n');
    expect(
      await fx.fails('apply_patch', {
        operations: [{ op: 'replace', path: 'a.txt', oldText: 'x = 1', newText: 'y' }],
      }),
    ).toMatch(/occurs 2 times \(lines 1, 2\).*replaceAll/);
    expect(
      await fx.fails('apply_patch', {
        operations: [{ op: 'replace', path: 'a.txt', oldText: 'zzz', newText: 'y' }],
      }),
    ).toMatch(/was not found/);
    await fx.ok('apply_patch', {
      operations: [{ op: 'replace', path: 'a.txt', oldText: 'x = 1', newText: 'y', replaceAll: true }],
    });
    expect(read('a.txt')).toBe('y\ny\n');
  });

  it('refuses to delete a non-empty folder, and deletes one emptied earlier in the patch', async () => {
    fx.write('dir/only.txt', 'x');
    expect(await fx.fails('apply_patch', { operations: [{ op: 'delete', path: 'dir' }] })).toMatch(
      /not empty/,
    );
    await fx.ok('apply_patch', {
      operations: [
        { op: 'delete', path: 'dir/only.txt' },
        { op: 'delete', path: 'dir' },
      ],
    });
    expect(exists('dir')).toBe(false);
  });

  it('leaves everything untouched when a later operation fails validation', async () => {
    fx.write('a.txt', 'keep');
    const error = await fx.fails('apply_patch', {
      operations: [
        { op: 'write', path: 'a.txt', content: 'changed' },
        { op: 'write', path: 'created.txt', content: 'new' },
        { op: 'move', from: 'missing.txt', to: 'x.txt' },
      ],
    });
    expect(error).toMatch(/Operation 3 \(move missing.txt -> x.txt\) failed: the source does not exist/);
    expect(read('a.txt')).toBe('keep');
    expect(exists('created.txt')).toBe(false);
  });

  it('rolls every path back, mode bits included, when the disk refuses a write midway', async () => {
    fx.write('a.txt', 'original a');
    chmodSync(path.join(fx.root, 'a.txt'), 0o600);
    fx.write('gone.sh', '#!/bin/sh\n');
    chmodSync(path.join(fx.root, 'gone.sh'), 0o755);
    // A name over the file system's 255-byte limit passes every check but fails on disk.
    const tooLong = `${'n'.repeat(300)}.txt`;
    const error = await fx.fails('apply_patch', {
      operations: [
        { op: 'write', path: 'a.txt', content: 'changed a' },
        { op: 'write', path: 'fresh/new.txt', content: 'new' },
        { op: 'delete', path: 'gone.sh' },
        { op: 'write', path: `fresh/${tooLong}`, content: 'boom' },
      ],
    });
    expect(error).toMatch(/Operation 4 \(write fresh\/n+\.txt\) failed: ENAMETOOLONG.*rolled back/);
    expect(read('a.txt')).toBe('original a');
    expect(modeOf('a.txt')).toBe(0o600);
    expect(read('gone.sh')).toBe('#!/bin/sh\n');
    expect(modeOf('gone.sh')).toBe(0o755);
    expect(exists('fresh')).toBe(false);
  });

  it('writes binary content from base64 and keeps the mode of a rewritten file', async () => {
    fx.write('run.sh', 'echo 1');
    chmodSync(path.join(fx.root, 'run.sh'), 0o750);
    await fx.ok('apply_patch', {
      operations: [
        {
          op: 'write',
          path: 'bytes.bin',
          content: Buffer.from([0, 255, 1]).toString('base64'),
          encoding: 'base64',
        },
        { op: 'write', path: 'run.sh', content: 'echo 2' },
      ],
    });
    expect([...readFileSync(path.join(fx.root, 'bytes.bin'))]).toEqual([0, 255, 1]);
    expect(modeOf('run.sh')).toBe(0o750);
  });

  it('refuses writes into .git and to secrets, and malformed operations, by name', async () => {
    mkdirSync(path.join(fx.root, '.git'));
    expect(
      await fx.fails('apply_patch', { operations: [{ op: 'write', path: '.git/config', content: 'x' }] }),
    ).toMatch(/rule: deny-write/);
    expect(
      await fx.fails('apply_patch', { operations: [{ op: 'write', path: 'config/.env', content: 'x' }] }),
    ).toMatch(/deny-write/);
    expect(await fx.fails('apply_patch', { operations: [] })).toMatch(/`operations`/);
    expect(await fx.fails('apply_patch', { operations: [{ op: 'chmod', path: 'a' }] })).toMatch(
      /`operations.0.op`/,
    );
    expect(
      await fx.fails('apply_patch', {
        operations: Array.from({ length: 101 }, () => ({ op: 'mkdir', path: 'x' })),
      }),
    ).toMatch(/`operations`/);
  });
});

describe('copy_file', () => {
  it('copies bytes and mode, creating parents, and refuses to overwrite unless asked', async () => {
    const bytes = Buffer.from([0, 1, 2, 3, 254, 255]);
    fx.write('bin/tool', bytes);
    chmodSync(path.join(fx.root, 'bin/tool'), 0o755);
    const copied = await fx.ok('copy_file', { source: 'bin/tool', destination: 'backup/tool' });
    expect(copied).toMatchObject({ bytes: 6, sha256: sha(bytes), replaced: false });
    expect(readFileSync(path.join(fx.root, 'backup/tool')).equals(bytes)).toBe(true);
    expect(modeOf('backup/tool')).toBe(0o755);
    expect(await fx.fails('copy_file', { source: 'bin/tool', destination: 'backup/tool' })).toMatch(
      /exists: set overwrite/,
    );
    fx.write('other', 'other');
    expect(
      await fx.ok('copy_file', { source: 'other', destination: 'backup/tool', overwrite: true }),
    ).toMatchObject({ replaced: true });
    expect(read('backup/tool')).toBe('other');
    expect(await fx.fails('copy_file', { source: 'missing', destination: 'x' })).toMatch(/not a file/);
  });

  it('refuses to copy out of the roots or from a secret', async () => {
    fx.write('a.txt', 'a');
    fx.write('.env', 'TOKEN=1');
    expect(
      await fx.fails('copy_file', { source: 'a.txt', destination: path.join(fx.outside, 'a.txt') }),
    ).toMatch(/outside-roots/);
    expect(await fx.fails('copy_file', { source: '.env', destination: 'env-copy.txt' })).toMatch(/deny-read/);
    expect(existsSync(path.join(fx.outside, 'a.txt'))).toBe(false);
  });
});

describe('checkpoints', () => {
  it('creates, lists, reads and restores, with a pre-restore checkpoint to undo', async () => {
    fx.write('src/a.ts', 'a1');
    fx.write('src/b.ts', 'b1');
    chmodSync(path.join(fx.root, 'src/b.ts'), 0o600);
    const created = await fx.ok<{ checkpoint: { id: string; fileCount: number } }>('checkpoint_write', {
      action: 'create',
      paths: ['src', 'notes.txt'],
      label: 'before refactor',
    });
    expect(created.checkpoint.fileCount).toBe(2);

    writeFileSync(path.join(fx.root, 'src/a.ts'), 'a2');
    chmodSync(path.join(fx.root, 'src/b.ts'), 0o644);
    fx.write('src/added.ts', 'new');
    fx.write('notes.txt', 'written after');

    const listed = await fx.ok<{ checkpoints: { id: string; label?: string }[] }>('checkpoint_read', {
      action: 'list',
    });
    expect(listed.checkpoints[0]).toMatchObject({ id: created.checkpoint.id, label: 'before refactor' });
    const entries = await fx.ok<{ entries: { path: string; kind: string }[] }>('checkpoint_read', {
      action: 'read',
      id: created.checkpoint.id,
    });
    expect(entries.entries.map((entry) => `${entry.kind} ${entry.path}`)).toEqual([
      'absent notes.txt',
      'directory src',
      'file src/a.ts',
      'file src/b.ts',
    ]);
    expect(
      await fx.ok('checkpoint_read', { action: 'read', id: created.checkpoint.id, path: 'src/a.ts' }),
    ).toMatchObject({ content: 'a1' });

    const restored = await fx.ok<{ preRestore: { id: string } }>('checkpoint_write', {
      action: 'restore',
      id: created.checkpoint.id,
    });
    expect(read('src/a.ts')).toBe('a1');
    expect(modeOf('src/b.ts')).toBe(0o600);
    expect(exists('src/added.ts')).toBe(false);
    expect(exists('notes.txt')).toBe(false);

    await fx.ok('checkpoint_write', { action: 'restore', id: restored.preRestore.id });
    expect(read('src/a.ts')).toBe('a2');
    expect(read('src/added.ts')).toBe('new');
    expect(read('notes.txt')).toBe('written after');
  });

  it('keeps the latest 50 per root, stored outside the project', async () => {
    fx.write('a.txt', 'a');
    const ids: string[] = [];
    for (let i = 0; i < 52; i++) {
      ids.push(
        (
          await fx.ok<{ checkpoint: { id: string } }>('checkpoint_write', {
            action: 'create',
            paths: ['a.txt'],
          })
        ).checkpoint.id,
      );
    }
    const listed = await fx.ok<{ checkpoints: { id: string }[] }>('checkpoint_read', {
      action: 'list',
      limit: 50,
      maxTokens: 64000,
    });
    expect(listed.checkpoints).toHaveLength(50);
    expect(listed.checkpoints.map((c) => c.id)).not.toContain(ids[0]);
    expect(await fx.fails('checkpoint_write', { action: 'restore', id: ids[0] })).toMatch(/No checkpoint/);
    // Restoring the oldest kept one must not let its own pre-restore checkpoint prune it away.
    writeFileSync(path.join(fx.root, 'a.txt'), 'changed');
    const oldest = listed.checkpoints.at(-1)?.id;
    await fx.ok('checkpoint_write', { action: 'restore', id: oldest });
    expect(read('a.txt')).toBe('a');
    expect(fx.checkpoints.file.startsWith(fx.root)).toBe(false);
    expect(existsSync(fx.checkpoints.file)).toBe(true);
  });

  it('explains missing arguments, too many paths and the size cap', async () => {
    expect(await fx.fails('checkpoint_write', { action: 'create' })).toMatch(/needs paths/);
    expect(await fx.fails('checkpoint_write', { action: 'restore' })).toMatch(/needs id/);
    expect(
      await fx.fails('checkpoint_write', {
        action: 'create',
        paths: Array.from({ length: 101 }, (_, i) => `f${i}`),
      }),
    ).toMatch(/`paths`/);
    fx.write('huge/a.bin', Buffer.alloc(40 * 1024 * 1024, 1));
    fx.write('huge/b.bin', Buffer.alloc(40 * 1024 * 1024, 2));
    expect(await fx.fails('checkpoint_write', { action: 'create', paths: ['huge'] })).toMatch(
      /more than 64 MiB/,
    );
    // A file of 3 GiB (sparse: no disk) is refused by its size, not read into memory first.
    fx.write('sparse.bin', '');
    truncateSync(path.join(fx.root, 'sparse.bin'), 3 * 1024 ** 3);
    expect(await fx.fails('checkpoint_write', { action: 'create', paths: ['sparse.bin'] })).toMatch(
      /more than 64 MiB/,
    );
  });
});
