// A folder on a checked path swapped for a symlink out of the roots between the guard's check and
// the write or read (pinned.ts). The unit tests swap at the widest point of that window, after the
// check and before the call; the tool test races a real swapping process against the tools.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFileExclusive, writeFileAtomic } from '../src/files/atomic-write.js';
import { applyChanges, readPathState } from '../src/files/change-set.js';
import { makeFolders } from '../src/files/pinned.js';
import { type FsFixture, fsFixture } from './fixture.js';

let base: string;
let inside: string;
let outside: string;

/** `inside/sub` as it was checked, now a symlink to `outside`; the real folder moved aside. */
function swapSubForLink(): string {
  const sub = path.join(inside, 'sub');
  renameSync(sub, path.join(inside, 'sub.moved'));
  symlinkSync(outside, sub);
  return sub;
}

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'swapped-')));
  inside = path.join(base, 'inside');
  outside = path.join(base, 'outside');
  mkdirSync(path.join(inside, 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), 'TOP SECRET\n');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('a folder swapped for a symlink after the path was checked', () => {
  it('writeFileAtomic and createFileExclusive refuse, writing nothing on either side', async () => {
    const checked = path.join(inside, 'sub', 'note.txt');
    swapSubForLink();
    await expect(writeFileAtomic(checked, Buffer.from('pwned'))).rejects.toMatchObject({
      code: 'path_changed',
      message: expect.stringContaining(`now leads to ${outside}`),
    });
    await expect(createFileExclusive(checked, Buffer.from('pwned'))).rejects.toMatchObject({
      code: 'path_changed',
    });
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(readdirSync(path.join(inside, 'sub.moved'))).toEqual([]);
  });

  it('applyChanges refuses every kind of step and leaves the outside folder as it was', async () => {
    const planned = {
      file: path.join(inside, 'sub', 'new.txt'),
      folder: path.join(inside, 'sub', 'made'),
      removal: path.join(inside, 'sub', 'secret.txt'),
    };
    swapSubForLink();
    for (const [target, state] of [
      [planned.file, { kind: 'file', content: Buffer.from('pwned'), mode: 0o644 }],
      [planned.folder, { kind: 'directory', mode: 0o777 }],
      [planned.removal, { kind: 'absent' }],
    ] as const) {
      await expect(applyChanges(new Map([[target, state]]))).rejects.toThrow(/changed while in use/);
    }
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
  });

  it('readPathState refuses to read what the swapped path now leads to', async () => {
    writeFileSync(path.join(inside, 'sub', 'secret.txt'), 'inside\n');
    const checked = path.join(inside, 'sub', 'secret.txt');
    swapSubForLink();
    await expect(readPathState(checked)).rejects.toThrow(/changed while in use/);
  });

  it('makeFolders makes nothing through the swapped folder', async () => {
    const checked = path.join(inside, 'sub', 'a', 'b');
    swapSubForLink();
    await expect(makeFolders(checked)).rejects.toThrow(/changed while in use/);
    expect(readdirSync(outside)).toEqual(['secret.txt']);
  });
});

describe('the tools against a process that keeps swapping a folder for a symlink out of the root', () => {
  let fx: FsFixture;
  let swapper: ReturnType<typeof spawn>;

  beforeAll(async () => {
    fx = await fsFixture();
    mkdirSync(path.join(fx.root, 'sub'));
    writeFileSync(path.join(fx.outside, 'secret.txt'), 'TOP SECRET\n');
    // Swaps `sub` between a real folder and a symlink to the outside folder, each held for up to a
    // millisecond: about as long as a tool takes from its check to its write. It ends with the
    // test's process, whatever ends that.
    const script = `
      const fs = require('node:fs');
      const [sub, aside, outside] = process.argv.slice(1);
      const parent = process.ppid;
      const pause = new Int32Array(new SharedArrayBuffer(4));
      const hold = () => Atomics.wait(pause, 0, 0, Math.random());
      while (process.ppid === parent) {
        try { fs.renameSync(sub, aside); fs.symlinkSync(outside, sub); hold(); fs.unlinkSync(sub); fs.renameSync(aside, sub); hold(); } catch {}
      }`;
    swapper = spawn(
      process.execPath,
      ['-e', script, path.join(fx.root, 'sub'), path.join(fx.root, 'sub.aside'), fx.outside],
      { stdio: 'ignore' },
    );
  });
  afterAll(async () => {
    swapper.kill('SIGKILL');
    await new Promise((resolve) => swapper.once('exit', resolve));
    await fx.close();
  });

  it('never writes, copies, reads, hashes, lists or searches through it', async () => {
    writeFileSync(path.join(fx.root, 'source.txt'), 'copied\n');
    const secretHash = createHash('sha256').update('TOP SECRET\n').digest('hex');
    let leaked = 0;
    let written = 0;
    // 150 rounds, or as many as 40 s allow on a machine too busy for them.
    const until = Date.now() + 40_000;
    for (let round = 0; round < 150 && Date.now() < until; round++) {
      const write = await fx.client.callTool({
        name: 'apply_patch',
        arguments: { operations: [{ op: 'write', path: `sub/written-${round}.txt`, content: 'pwned' }] },
      });
      if (!write.isError) written++;
      await fx.client.callTool({
        name: 'copy_file',
        arguments: { source: 'source.txt', destination: `sub/deep/copied-${round}.txt` },
      });
      const read = await fx.client.callTool({ name: 'read_file', arguments: { path: 'sub/secret.txt' } });
      const found = await fx.client.callTool({
        name: 'search_text',
        arguments: { path: 'sub', pattern: 'TOP SECRET' },
      });
      const hashed = await fx.client.callTool({ name: 'stat_file', arguments: { path: 'sub/secret.txt' } });
      const listed = await fx.client.callTool({ name: 'list_dir', arguments: { path: 'sub' } });
      for (const answer of [read, found, hashed]) {
        const text = JSON.stringify(answer);
        if (text.includes('TOP SECRET') || text.includes(secretHash)) leaked++;
      }
      const entries =
        (listed.structuredContent as { entries?: { path: string }[] } | undefined)?.entries ?? [];
      if (entries.some((entry) => entry.path.endsWith('secret.txt'))) leaked++;
    }
    // Writes that found the real folder went through: the guard is not simply refusing everything.
    expect(written).toBeGreaterThan(0);
    expect(readdirSync(fx.outside)).toEqual(['secret.txt']);
    expect(leaked).toBe(0);
    expect(existsSync(path.join(fx.outside, 'deep'))).toBe(false);
  });
});

describe('a file replaced by a rename while it is read (as editors and builds save)', () => {
  let fx: FsFixture;
  let saver: ReturnType<typeof spawn>;
  beforeAll(async () => {
    fx = await fsFixture();
    writeFileSync(path.join(fx.root, 'saved.txt'), 'version\n');
    const script = `
      const fs = require('node:fs');
      const [target] = process.argv.slice(1);
      const parent = process.ppid;
      for (let n = 0; process.ppid === parent; n++) {
        fs.writeFileSync(target + '.tmp', 'version ' + n + '\\n');
        fs.renameSync(target + '.tmp', target);
      }`;
    saver = spawn(process.execPath, ['-e', script, path.join(fx.root, 'saved.txt')], { stdio: 'ignore' });
  });
  afterAll(async () => {
    saver.kill('SIGKILL');
    await new Promise((resolve) => saver.once('exit', resolve));
    await fx.close();
  });

  it('is read, old or new, never refused as a path that changed', async () => {
    const refused: string[] = [];
    const until = Date.now() + 40_000;
    for (let read = 0; read < 500 && Date.now() < until; read++) {
      const answer = await fx.client.callTool({ name: 'read_file', arguments: { path: 'saved.txt' } });
      if (answer.isError && JSON.stringify(answer).includes('changed while in use'))
        refused.push(JSON.stringify(answer));
    }
    expect(refused).toEqual([]);
  });
});
