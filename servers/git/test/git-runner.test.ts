import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GitFailure,
  type GitLocation,
  gitEnvironment,
  runGit,
  streamGitLines,
} from '../src/repository/git-process.js';
import { type GrepMatch, grepTracked } from '../src/repository/grep.js';
import { Repository } from '../src/repository/repository.js';
import { makeRepository, writeFile } from './fixture.js';

/** Processes this test process started that are still there (zombies included), by name. */
function children(): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const [, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(parent) === process.pid) found.push(name);
    } catch {
      // Gone between the listing and the read.
    }
  }
  return found;
}

/** A folder holding a `git` that runs `body` (a shell script) instead of git. */
function fakeGit(folder: string, body: string): string {
  writeFile(path.join(folder, 'git'), `#!/bin/sh\n${body}\n`);
  chmodSync(path.join(folder, 'git'), 0o755);
  return folder;
}

const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

let base: string;
let top: string;
let location: GitLocation;
let environment: Record<string, string>;

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-git-runner-')));
  top = makeRepository(path.join(base, 'repo'), {
    'notes.txt': `${Array.from({ length: 20_000 }, (_, line) => `match ${line}`).join('\n')}\n`,
    'flags.txt': ['-O2', '--exec', '--template=x', '-cfoo=bar', '-a.c', '-abc', 'plain'].join('\n'),
    'bytes.bin': Buffer.from(Array.from({ length: 256 }, (_, byte) => byte)).toString('latin1'),
  });
  location = { top, gitDir: path.join(top, '.git') };
  environment = gitEnvironment(location);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('the git runner on simple-git', () => {
  it('gives git the fixed environment only: nothing of the server’s own, nothing added back but simple-git’s abbreviation guard', async () => {
    const dump = path.join(base, 'environment.txt');
    const bin = fakeGit(path.join(base, 'dump-bin'), `env > '${dump}'\nexec '${realGit}' "$@"`);
    const source = {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: base,
      API_TOKEN: 'from the source environment',
      GIT_TRACE: path.join(base, 'trace-from-source'),
    };
    const expected = gitEnvironment(location, [], source);
    Object.assign(process.env, { TOOLMESH_RUNNER_SECRET: 'server secret', GIT_TRACE_SETUP: '1' });
    try {
      await runGit(expected, top, { args: ['rev-parse', 'HEAD'] });
    } finally {
      delete process.env.TOOLMESH_RUNNER_SECRET;
      delete process.env.GIT_TRACE_SETUP;
    }
    const seen = Object.fromEntries(
      readFileSync(dump, 'utf8')
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    // Variables the shell running the stand-in sets for itself.
    for (const own of ['PWD', 'SHLVL', '_', 'OLDPWD']) delete seen[own];
    expect(seen).toEqual({ ...expected, GIT_TEST_DISALLOW_ABBREVIATED_OPTIONS: 'true' });
    expect(existsSync(source.GIT_TRACE)).toBe(false);
  });

  it('keeps simple-git’s guards on: options that run programs are refused before git starts', async () => {
    const marker = path.join(base, 'ran');
    const attempts = [
      ['grep', `--open-files-in-pager=touch ${marker}`, '-e', 'match'],
      ['-c', `alias.x=!touch ${marker}`, 'x'],
      ['log', `--upload-pack=touch ${marker}`],
    ];
    for (const args of attempts) {
      const failure = await runGit(environment, top, { args }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(GitFailure);
      expect((failure as GitFailure).message).toMatch(/simple-git refused .*bug in toolmesh-git/);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('keeps git’s refusal of abbreviated options on', async () => {
    await expect(runGit(environment, top, { args: ['grep', '--fixed', '-e', 'match'] })).rejects.toThrow(
      /abbreviated or ambiguous option/,
    );
  });

  it('takes declared exit codes as answers and gives output as bytes', async () => {
    const none = await runGit(environment, top, {
      args: ['grep', '--fixed-strings', '-e', 'not in any file'],
      exitCodes: [0, 1],
    });
    expect(none.exitCode).toBe(1);
    const unknown = await runGit(environment, top, {
      args: ['rev-parse', '--verify', 'no-such-branch'],
      exitCodes: [0, 128],
    });
    expect(unknown.exitCode).toBe(128);
    expect(unknown.stderr).toMatch(/Needed a single revision/);
    await expect(
      runGit(environment, top, { args: ['rev-parse', '--verify', 'no-such-branch'] }),
    ).rejects.toThrow(/git rev-parse failed \(exit 128\): fatal: Needed a single revision/);
    const blob = await runGit(environment, top, { args: ['cat-file', 'blob', 'HEAD:bytes.bin'] });
    expect(blob.bytes).toEqual(readFileSync(path.join(top, 'bytes.bin')));
  });

  it('writes standard input when given, and otherwise ends it at once', async () => {
    const given = await runGit(environment, top, { args: ['hash-object', '--stdin'], input: 'hello\n' });
    expect(given.stdout).toBe('ce013625030ba8dba906f756967f9e9ca394464a\n');
    // Left open, stdin would keep git waiting until the timeout.
    const none = await runGit(environment, top, { args: ['hash-object', '--stdin'], timeoutMs: 5000 });
    expect(none.stdout).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n');
  });

  it('says so when the folder git should run in is gone', async () => {
    await expect(runGit(environment, path.join(base, 'gone'), { args: ['status'] })).rejects.toThrow(
      /The folder .*gone no longer exists/,
    );
  });

  it('stops git past the output cap and says so', async () => {
    await expect(
      runGit(environment, top, { args: ['cat-file', 'blob', 'HEAD:notes.txt'], maxOutputBytes: 1000 }),
    ).rejects.toThrow(/git cat-file produced more output than the server holds \(1000 bytes\)/);
    expect(children()).toEqual([]);
  });

  it('ends a git that hangs on the timeout, and one the caller cancels, leaving no process', async () => {
    const bin = fakeGit(path.join(base, 'hang-bin'), 'exec sleep 30');
    const hanging = gitEnvironment(location, [], { PATH: `${bin}:${process.env.PATH}`, HOME: base });
    await expect(runGit(hanging, top, { args: ['status'], timeoutMs: 300 })).rejects.toThrow(
      /git status did not finish within 0.3 s/,
    );
    expect(children()).toEqual([]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    await expect(runGit(hanging, top, { args: ['status'], signal: controller.signal })).rejects.toThrow(
      /git status was cancelled/,
    );
    expect(children()).toEqual([]);
    await expect(runGit(hanging, top, { args: ['status'], signal: controller.signal })).rejects.toThrow(
      /git status was cancelled/,
    );
  });

  it('stops a stream of lines when the reader has enough, leaving no git process', async () => {
    const lines: string[] = [];
    const result = await streamGitLines(
      environment,
      top,
      { args: ['grep', '--fixed-strings', '-e', 'match', '--', 'notes.txt'] },
      (line) => lines.push(line) < 3,
    );
    expect(result).toEqual({ stoppedEarly: true });
    expect(lines).toEqual(['notes.txt:match 0', 'notes.txt:match 1', 'notes.txt:match 2']);
    expect(children()).toEqual([]);
    const all = await streamGitLines(
      environment,
      top,
      { args: ['grep', '--count', '-e', 'match', '--', 'notes.txt'] },
      (line) => lines.push(line) > 0,
    );
    expect(all).toEqual({ stoppedEarly: false });
    expect(lines.at(-1)).toBe('notes.txt:20000');
  });
});

describe('grep patterns that begin with "-"', () => {
  const repository = () => new Repository(top, location.gitDir, location.gitDir, 'repo');
  async function found(pattern: string, regex: boolean, ignoreCase = false): Promise<string[]> {
    const matches: GrepMatch[] = [];
    await grepTracked(
      repository(),
      { pattern, regex, ignoreCase, paths: ['flags.txt'] },
      (match) => matches.push(match) > 0,
    );
    return matches.map((match) => `${match.line}:${match.column}:${match.text}`);
  }

  it('would be read as options by simple-git’s argument guard if passed as they are', async () => {
    await expect(runGit(environment, top, { args: ['grep', '-e', '-O2'] })).rejects.toThrow(
      /simple-git refused/,
    );
  });

  it('are searched for, literally or as expressions, never refused', async () => {
    expect(await found('-O2', false)).toEqual(['1:1:-O2']);
    expect(await found('--exec', false)).toEqual(['2:1:--exec']);
    expect(await found('--template=x', false)).toEqual(['3:1:--template=x']);
    expect(await found('-cfoo=bar', false)).toEqual(['4:1:-cfoo=bar']);
    expect(await found('-a.c', false)).toEqual(['5:1:-a.c']);
    expect(await found('-a.c', true)).toEqual(['5:1:-a.c', '6:1:-abc']);
    expect(await found('-A.C', false, true)).toEqual(['5:1:-a.c']);
    expect(await found('-(o|c)', true, true)).toEqual(['1:1:-O2', '4:1:-cfoo=bar']);
    expect(await found('-[*+?{}|^$\\]', false)).toEqual([]);
  });
});
